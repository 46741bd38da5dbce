// convert-graph-to-te on graph.fused: the whole group becomes ONE kernel, @fused_<anchor>_<N>,
// marked te.fused, whose computes are those of its ops' rules in order, with no schedule:
// the anchor's reduction is named "anchor" and marked te.templated, the padding stays a
// compute of its own. te-default-schedule (the SCHED prefix) then attaches the default fused
// schedule: the bias and residual computes are #te.inline'd into the last one, which runs
// #te.compute_at the anchor's row loop i2 (n, f, y outside the reduction loops, x inside
// them); the LOOP prefix checks that schedule, lowered.
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te,te-default-schedule | filecheck %s --check-prefix=SCHED
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te,te-default-schedule,convert-te-to-loop | filecheck %s --check-prefix=LOOP

// CHECK-LABEL: func.func @fused_conv_0(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x2x5x6xf32>, %[[W:\w+]]: tensor<3x2x3x3xf32>, %[[B:\w+]]: tensor<3xf32>, %[[S:\w+]]: tensor<1x3x5x6xf32>) -> tensor<1x3x5x6xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    %[[PAD:\w+]] = te.compute (%{{.*}}) in [1, 2, 7, 8] : tensor<1x2x7x8xf32> {
// CHECK:           te.read %[[X]]
// CHECK:         %[[ACC:\w+]] = te.compute "anchor" (%{{.*}}) in [1, 3, 5, 6] sum (%{{.*}}) in [2, 3, 3] {te.templated} : tensor<1x3x5x6xf32> {
// CHECK:           te.read %[[PAD]]
// CHECK:           te.read %[[W]]
// CHECK:         %[[BIAS:\w+]] = te.compute (%{{.*}}) in [1, 3, 5, 6] : tensor<1x3x5x6xf32> {
// CHECK:           te.read %[[ACC]]
// CHECK:           te.read %[[B]]
// CHECK:         %[[ADD:\w+]] = te.compute (%{{.*}}) in [1, 3, 5, 6] : tensor<1x3x5x6xf32> {
// CHECK:           te.read %[[BIAS]]
// CHECK:           te.read %[[S]]
// CHECK:         %[[RELU:\w+]] = te.compute (%{{.*}}) in [1, 3, 5, 6] : tensor<1x3x5x6xf32> {
// CHECK-NEXT:      te.read %[[ADD]]
// CHECK-NEXT:      arith.constant 0.000000e+00
// CHECK-NEXT:      arith.maximumf
// CHECK-NEXT:      te.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[RELU]] : tensor<1x3x5x6xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @main(%[[MX:\w+]]: tensor<1x2x5x6xf32>, %[[MW:\w+]]: tensor<3x2x3x3xf32>, %[[MB:\w+]]: tensor<3xf32>, %[[MS:\w+]]: tensor<1x3x5x6xf32>) -> tensor<1x3x5x6xf32> {
// CHECK-NEXT:    %[[R:\w+]] = func.call @fused_conv_0(%[[MX]], %[[MW]], %[[MB]], %[[MS]])
// CHECK-NEXT:    func.return %[[R]]
//
// SCHED-LABEL: func.func @fused_conv_0(
// SCHED-SAME:      attributes {te.kernel, te.fused} {
// SCHED-NEXT:    %[[PAD:\w+]] = te.compute (%{{.*}}) in [1, 2, 7, 8] : tensor<1x2x7x8xf32> {
// SCHED:         %[[ACC:\w+]] = te.compute "anchor" (%{{.*}}) in [1, 3, 5, 6] sum (%{{.*}}) in [2, 3, 3] {te.templated} : tensor<1x3x5x6xf32> {
// SCHED:           te.read %[[PAD]]
// SCHED:         %[[BIAS:\w+]] = te.compute (%{{.*}}) in [1, 3, 5, 6] {schedule = [#te.inline]} : tensor<1x3x5x6xf32> {
// SCHED-NEXT:      te.read %[[ACC]]
// SCHED:         %[[ADD:\w+]] = te.compute (%{{.*}}) in [1, 3, 5, 6] {schedule = [#te.inline]} : tensor<1x3x5x6xf32> {
// SCHED:           te.read %[[BIAS]]
// SCHED:         %[[RELU:\w+]] = te.compute (%{{.*}}) in [1, 3, 5, 6] {schedule = [#te.compute_at<"anchor", "i2">]} : tensor<1x3x5x6xf32> {
// SCHED-NEXT:      te.read %[[ADD]]
// SCHED:         func.return %[[RELU]] : tensor<1x3x5x6xf32>
//
// In loops: the padded copy, then per (n, f, y) the row's accumulator init, the window sums
// for the row, and right after them the epilogue for that row, which updates the anchor's
// values in place: the anchor accumulates straight into the kernel's result (only the padded
// copy is scratch).
// LOOP-LABEL: func.func @fused_conv_0(
// LOOP-SAME:      %{{\w+}}: memref<1x3x5x6xf32>, %[[OUT:\w+]]: memref<1x3x5x6xf32>, %{{\w+}}: memref<1x2x7x8xf32>) attributes {loop.kernel} {
// LOOP:                 loop.for %{{\w+}} = 0 to 8 step 1 {
// LOOP:         loop.for %[[N:\w+]] = 0 to 1 step 1 {
// LOOP-NEXT:      loop.for %[[F:\w+]] = 0 to 3 step 1 {
// LOOP-NEXT:        loop.for %[[Y:\w+]] = 0 to 5 step 1 {
// LOOP-NEXT:          loop.for %[[X0:\w+]] = 0 to 6 step 1 {
// LOOP-NEXT:            %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// LOOP-NEXT:            loop.store %[[ZERO]], %[[OUT]][%[[N]], %[[F]], %[[Y]], %[[X0]]]
// LOOP-NEXT:          }
// LOOP-NEXT:          loop.for %{{\w+}} = 0 to 2 step 1 {
// LOOP:                       loop.store %{{\w+}}, %[[OUT]][%[[N]], %[[F]], %[[Y]], %{{\w+}}]
// LOOP:              loop.for %[[X2:\w+]] = 0 to 6 step 1 {
// LOOP:                 loop.load %[[OUT]][%[[N]], %[[F]], %[[Y]], %[[X2]]]
// LOOP:                 arith.maximumf
// LOOP-NEXT:            loop.store %{{\w+}}, %[[OUT]][%[[N]], %[[F]], %[[Y]], %[[X2]]]
// LOOP-NEXT:          }
// LOOP-NEXT:        }
// LOOP-NEXT:      }
// LOOP-NEXT:    }
// LOOP-NEXT:    func.return
func.func @main(%x: tensor<1x2x5x6xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>, %s: tensor<1x3x5x6xf32>) -> tensor<1x3x5x6xf32> {
  %r = graph.fused "conv_add_relu" (%x, %w, %b, %s) : (tensor<1x2x5x6xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>, tensor<1x3x5x6xf32>) -> tensor<1x3x5x6xf32> {
  ^bb0(%a: tensor<1x2x5x6xf32>, %c: tensor<3x2x3x3xf32>, %d: tensor<3xf32>, %e: tensor<1x3x5x6xf32>):
    %0 = graph.conv %a, %c, %d {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x6xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x6xf32>
    %1 = graph.add %0, %e : (tensor<1x3x5x6xf32>, tensor<1x3x5x6xf32>) -> tensor<1x3x5x6xf32>
    %2 = graph.relu %1 : tensor<1x3x5x6xf32>
    graph.yield %2 : tensor<1x3x5x6xf32>
  }
  func.return %r : tensor<1x3x5x6xf32>
}

// -----

// Without an anchor (an injective chain) the kernel is still te.fused, nothing is marked
// te.templated and nothing is scheduled; unfused ops keep their <op>_<N> kernels, numbered
// in one sequence, not te.fused. te-default-schedule inlines every compute but the last and
// attaches nothing to the last.
// CHECK-LABEL: func.func @exp_0(
// CHECK-SAME:      attributes {te.kernel} {
// CHECK-LABEL: func.func @fused_add_1(
// CHECK-SAME:      %{{\w+}}: tensor<2x3x4xf32>, %{{\w+}}: tensor<4xf32>) -> tensor<4x6xf32> attributes {te.kernel, te.fused} {
// CHECK-NEXT:    te.compute (%{{.*}}) in [2, 3, 4] : tensor<2x3x4xf32> {
// CHECK:         te.compute (%{{.*}}) in [6, 4] : tensor<6x4xf32> {
// CHECK:         te.compute (%{{.*}}) in [4, 6] : tensor<4x6xf32> {
// CHECK:         %[[LAST:\w+]] = te.compute (%{{.*}}) in [4, 6] : tensor<4x6xf32> {
// CHECK:         func.return %[[LAST]]
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[E:\w+]] = func.call @exp_0(
// CHECK-NEXT:    %[[R:\w+]] = func.call @fused_add_1(%[[E]], %{{\w+}})
// SCHED-LABEL: func.func @fused_add_1(
// SCHED-NEXT:    te.compute (%{{.*}}) in [2, 3, 4] {schedule = [#te.inline]} : tensor<2x3x4xf32> {
// SCHED:         te.compute (%{{.*}}) in [6, 4] {schedule = [#te.inline]} : tensor<6x4xf32> {
// SCHED:         te.compute (%{{.*}}) in [4, 6] {schedule = [#te.inline]} : tensor<4x6xf32> {
// SCHED:         %[[LAST:\w+]] = te.compute (%{{.*}}) in [4, 6] : tensor<4x6xf32> {
// SCHED:         func.return %[[LAST]]
// LOOP-LABEL: func.func @fused_add_1(
// LOOP-NEXT:    loop.for
// LOOP-NEXT:      loop.for
// LOOP-NOT:     loop.for
// LOOP:         func.return
func.func @main(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<4x6xf32> {
  %e = graph.exp %x : tensor<2x3x4xf32>
  %r = graph.fused "add_reshape_transpose_sigmoid" (%e, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<4x6xf32> {
  ^bb0(%a: tensor<2x3x4xf32>, %c: tensor<4xf32>):
    %0 = graph.add %a, %c : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %1 = graph.reshape %0 : tensor<2x3x4xf32> to tensor<6x4xf32>
    %2 = graph.transpose %1 {perm = array<i64: 1, 0>} : tensor<6x4xf32> -> tensor<4x6xf32>
    %3 = graph.sigmoid %2 : tensor<4x6xf32>
    graph.yield %3 : tensor<4x6xf32>
  }
  func.return %r : tensor<4x6xf32>
}
