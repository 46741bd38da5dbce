// graph-winograd's tuned algorithms: `choices` ("key:algorithm" items, which win over the
// records) and `records` apply in mode "auto"; the keys name this CPU (`choice_key`), so
// which conv a choice reaches is checked in tests/unit/test_tuner_choices.py. Here: in a mode
// that names a tile, choices do not apply (the conv takes f2x2 although a choice says direct);
// a malformed choice, or records that are not there, is an error naming the pass.
// RUN: minitvm-opt %s -p 'graph-winograd{mode=f2x2 choices="KEY:direct"}' | filecheck %s
// RUN: not minitvm-opt %s -p 'graph-winograd{choices="0123:f9x9"}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not minitvm-opt %s -p 'graph-winograd{choices="f4x4"}' 2>&1 | filecheck %s --check-prefix=NOKEY
// RUN: not minitvm-opt %s -p 'graph-winograd{records="sqlite:////nonexistent/r.db" threads=1}' 2>&1 | filecheck %s --check-prefix=RECORDS

// CHECK-LABEL: func.func @conv(
// CHECK:         graph.winograd_input
// CHECK-NOT:     graph.conv_nchwc
// BAD:     error: graph-winograd: choice '0123:f9x9' is not 'key:algorithm' with an algorithm among direct, f2x2, f4x4
// BAD:     note: raised by pass 'graph-winograd'
// NOKEY:   error: graph-winograd: choice 'f4x4' is not 'key:algorithm'
// RECORDS: error: records sqlite:////nonexistent/r.db: no such file /nonexistent/r.db
// RECORDS: note: raised by pass 'graph-winograd'
func.func @conv(%x: tensor<1x1x4x4x1xf32>) -> tensor<1x1x4x4x1xf32> {
  %w = graph.constant #graph.splat<1.0 : f32> : tensor<1x1x3x3x1x1xf32>
  %y = graph.conv_nchwc %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4x1xf32>, tensor<1x1x3x3x1x1xf32>) -> tensor<1x1x4x4x1xf32>
  func.return %y : tensor<1x1x4x4x1xf32>
}
