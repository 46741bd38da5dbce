// One case per verifier error of the te dialect, each pinned to its exact message.
//
// With --verify-diagnostics, xDSL 0.75 prints for a chunk that fails to verify: the message,
// then the chunk in generic form with the failing op underlined (^^^---) and the message
// repeated beneath it as "| Operation does not verify: <message>". A chunk that fails to
// parse prints only the message. Every chunk after the first starts with the separator line;
// the exit code is 0, so each case checks its own separator and message.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// An unknown reduction.
// CHECK:      {{^}}te.compute: reduce kind 'mean' is not one of sum, prod, max, min{{$}}
// CHECK:      = "te.compute"() <{reduce_kind = "mean", reduce_extents = array<i64: 8>}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: reduce kind 'mean' is not one of sum, prod, max, min{{$}}
func.func @bad_reduce_kind(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] mean (%k) in [8] : tensor<4xf32> {
    %v = te.read %x[%i, %k] : tensor<4x8xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}

// -----

// A reduce kind without extents (only the generic form can say it).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: reduce_kind and reduce_extents come together{{$}}
// CHECK:      = "te.compute"() <{reduce_kind = "sum"}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: reduce_kind and reduce_extents come together{{$}}
func.func @kind_without_extents(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = "te.compute"() <{reduce_kind = "sum"}> ({
  ^bb0(%i: index, %k: index):
    %v = te.read %x[%i, %k] : tensor<4x8xf32>
    te.yield %v : f32
  }) : () -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// Extents without a reduce kind.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: reduce_kind and reduce_extents come together{{$}}
// CHECK:      = "te.compute"() <{reduce_extents = array<i64: 8>}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: reduce_kind and reduce_extents come together{{$}}
func.func @extents_without_kind(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = "te.compute"() <{reduce_extents = array<i64: 8>}> ({
  ^bb0(%i: index, %k: index):
    %v = te.read %x[%i, %k] : tensor<4x8xf32>
    te.yield %v : f32
  }) : () -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// A reduction over no axes.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: a reduction needs at least one reduction axis{{$}}
// CHECK:      = "te.compute"() <{reduce_kind = "max", reduce_extents = array<i64>}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: a reduction needs at least one reduction axis{{$}}
func.func @no_reduction_axes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] max () in [] : tensor<4xf32> {
    %v = te.read %x[%i] : tensor<4xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}

// -----

// Shapes are static.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: the result must have a known (static or symbolic) shape{{$}}
// CHECK:      = "te.compute"() ({
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: the result must have a known (static or symbolic) shape{{$}}
func.func @dynamic_shape(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = te.compute (%i) in [4] : tensor<?xf32> {
    %v = te.read %x[%i] : tensor<?xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<?xf32>
}

// -----

// Too few block arguments for the result's rank.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: body needs 2 index arguments (2 for the result's dims, 0 for reduction axes), got 1{{$}}
// CHECK:      = "te.compute"() ({
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body needs 2 index arguments (2 for the result's dims, 0 for reduction axes), got 1{{$}}
func.func @too_few_args(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = "te.compute"() ({
  ^bb0(%i: index):
    %v = te.read %x[%i, %i] : tensor<4x8xf32>
    te.yield %v : f32
  }) : () -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}

// -----

// More reduction extents than reduction arguments (generic form; the custom parser rejects it).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: body needs 4 index arguments (2 for the result's dims, 2 for reduction axes), got 3{{$}}
// CHECK:      = "te.compute"() <{reduce_kind = "sum", reduce_extents = array<i64: 8, 2>}>
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body needs 4 index arguments (2 for the result's dims, 2 for reduction axes), got 3{{$}}
func.func @extents_args_mismatch(%a: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %r = "te.compute"() <{reduce_kind = "sum", reduce_extents = array<i64: 8, 2>}> ({
  ^bb0(%i: index, %j: index, %k: index):
    %v = te.read %a[%i, %k] : tensor<4x8xf32>
    te.yield %v : f32
  }) : () -> tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}

// -----

// Block arguments must be `index`. The message gives the right count but does not say that
// the type is what is wrong.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: body needs 1 index arguments (1 for the result's dims, 0 for reduction axes), got 1{{$}}
// CHECK:      = "te.compute"() ({
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body needs 1 index arguments (1 for the result's dims, 0 for reduction axes), got 1{{$}}
// CHECK-NEXT: {{-+$}}
// CHECK-NEXT: ^bb0(%{{\w+}}: i64):
func.func @non_index_arg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "te.compute"() ({
  ^bb0(%i: i64):
    %c = arith.constant 1.0 : f32
    te.yield %c : f32
  }) : () -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// A body that ends in another terminator.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: body must end in te.yield{{$}}
// CHECK:      = "te.compute"() ({
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body must end in te.yield{{$}}
func.func @wrong_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] : tensor<4xf32> {
    %v = te.read %x[%i] : tensor<4xf32>
    loop.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}

// -----

// A body with no terminator at all is rejected by xDSL while parsing the region (a message
// only, no IR).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}Operation te.read terminates block in single-block region but is not a terminator{{$}}
// CHECK-NEXT: {{^}}// {{-----}}
func.func @no_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] : tensor<4xf32> {
    %v = te.read %x[%i] : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

// -----

// The yielded value has the result's element type.
// CHECK:      {{^}}te.compute: body yields i64 but the result's elements are f32{{$}}
// CHECK:      = "te.compute"() ({
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: body yields i64 but the result's elements are f32{{$}}
func.func @yield_type(%x: tensor<4xi64>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] : tensor<4xf32> {
    %v = te.read %x[%i] : tensor<4xi64>
    te.yield %v : i64
  }
  func.return %r : tensor<4xf32>
}

// -----

// A schedule entry that is not a te schedule primitive.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: schedule must be a list of te schedule primitives{{$}}
// CHECK:      = "te.compute"() ({
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: schedule must be a list of te schedule primitives{{$}}
// CHECK:      }) {schedule = [#te.split<"i0", 2>, "unroll"]} : () -> tensor<4xf32>
func.func @bad_schedule_entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] {schedule = [#te.split<"i0", 2>, "unroll"]} : tensor<4xf32> {
    %v = te.read %x[%i] : tensor<4xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}

// -----

// A schedule that is a primitive rather than a list of them.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: schedule must be a list of te schedule primitives{{$}}
// CHECK:      = "te.compute"() ({
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.compute: schedule must be a list of te schedule primitives{{$}}
// CHECK:      }) {schedule = #te.unroll<"i0">} : () -> tensor<4xf32>
func.func @schedule_not_a_list(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] {schedule = #te.unroll<"i0">} : tensor<4xf32> {
    %v = te.read %x[%i] : tensor<4xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}

// -----

// te.read takes one index per dimension.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.read: 1 indices for a rank-2 tensor{{$}}
// CHECK:      = "te.read"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.read: 1 indices for a rank-2 tensor{{$}}
func.func @read_index_count(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] : tensor<4xf32> {
    %v = te.read %x[%i] : tensor<4x8xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}

// -----

// A rank-0 tensor takes no index.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.read: 1 indices for a rank-0 tensor{{$}}
// CHECK:      = "te.read"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.read: 1 indices for a rank-0 tensor{{$}}
func.func @read_scalar_index(%s: tensor<f32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] : tensor<4xf32> {
    %v = te.read %s[%i] : tensor<f32>
    te.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}

// -----

// te.read's result is the tensor's element type (only the generic form can say otherwise).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.read: result type f64 is not the element type f32{{$}}
// CHECK:      = "te.read"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: te.read: result type f64 is not the element type f32{{$}}
func.func @read_result_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  %r = te.compute (%i) in [4] : tensor<4xf64> {
    %v = "te.read"(%x, %i) : (tensor<4xf32>, index) -> f64
    te.yield %v : f64
  }
  func.return %r : tensor<4xf64>
}

// -----

// te.yield only ends a te.compute body.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}'te.yield' expects parent op 'te.compute'{{$}}
// CHECK:      "te.yield"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: 'te.yield' expects parent op 'te.compute'{{$}}
func.func @yield_outside(%x: f32) -> f32 {
  te.yield %x : f32
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}te.compute: reduction extents must be >= 0, got [-3]{{$}}
func.func @negative_extent(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = te.compute (%i) in [4] sum (%k) in [-3] : tensor<4xf32> {
    %v = te.read %a[%i] : tensor<4xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}
