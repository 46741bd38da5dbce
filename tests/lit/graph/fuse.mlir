// graph-fuse: anchors take their single-use elementwise epilogues, left-over injective chains
// become one group; other operands (bias constants, residuals) become operands of the group.
// RUN: minitvm-opt %s -p graph-fuse | filecheck %s
// RUN: minitvm-opt %s -p 'graph-fuse{max-ops=2}' | filecheck %s --check-prefix=MAX2

// conv + bias + relu: one group; the bias constant stays outside and comes in as an operand.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x2x4x4xf32>, %[[W:\w+]]: tensor<3x2x3x3xf32>)
// CHECK-NEXT:    %[[B:\w+]] = graph.constant
// CHECK-NEXT:    %[[R:\w+]] = graph.fused "conv_add_relu" (%[[X]], %[[W]], %[[B]]) : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32> {
// CHECK-NEXT:    ^bb0(%[[BX:\w+]]: tensor<1x2x4x4xf32>, %[[BW:\w+]]: tensor<3x2x3x3xf32>, %[[BB:\w+]]: tensor<3x1x1xf32>):
// CHECK-NEXT:      %[[C:\w+]] = graph.conv %[[BX]], %[[BW]] {pads = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:      %[[A:\w+]] = graph.add %[[C]], %[[BB]]
// CHECK-NEXT:      %[[Y:\w+]] = graph.relu %[[A]] : tensor<1x3x4x4xf32>
// CHECK-NEXT:      graph.yield %[[Y]] : tensor<1x3x4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<1x3x4x4xf32>
// With max-ops=2 the group stops after the add; the relu is left on its own.
// MAX2-LABEL: func.func @conv_bias_relu(
// MAX2:         %[[R:\w+]] = graph.fused "conv_add" (
// MAX2:           graph.yield
// MAX2-NEXT:    }
// MAX2-NEXT:    %[[Y:\w+]] = graph.relu %[[R]]
// MAX2-NEXT:    func.return %[[Y]]
func.func @conv_bias_relu(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32> {
  %b = graph.constant dense<[[[0.5]], [[1.0]], [[-1.0]]]> : tensor<3x1x1xf32>
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  %1 = graph.add %0, %b : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %2 = graph.relu %1 : tensor<1x3x4x4xf32>
  func.return %2 : tensor<1x3x4x4xf32>
}

// A residual block: two groups, the skip connection %x an operand of the second.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x2x4x4xf32>, %[[W:\w+]]: tensor<2x2x3x3xf32>)
// CHECK-NEXT:    %[[R1:\w+]] = graph.fused "conv_relu" (%[[X]], %[[W]])
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      graph.conv
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R2:\w+]] = graph.fused "conv_add_relu" (%[[R1]], %[[W]], %[[X]])
// CHECK-NEXT:    ^bb0(%[[IN:\w+]]: tensor<1x2x4x4xf32>, %[[BW:\w+]]: tensor<2x2x3x3xf32>, %[[SKIP:\w+]]: tensor<1x2x4x4xf32>):
// CHECK-NEXT:      %[[C:\w+]] = graph.conv %[[IN]], %[[BW]]
// CHECK-NEXT:      %[[S:\w+]] = graph.add %[[SKIP]], %[[C]]
// CHECK-NEXT:      %[[Y:\w+]] = graph.relu %[[S]]
// CHECK-NEXT:      graph.yield %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R2]]
func.func @residual(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.relu %0 : tensor<1x2x4x4xf32>
  %2 = graph.conv %1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %3 = graph.add %x, %2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %4 = graph.relu %3 : tensor<1x2x4x4xf32>
  func.return %4 : tensor<1x2x4x4xf32>
}

// Negative: the matmul's result has two users, so neither can take it into a group.
// CHECK-LABEL: func.func @multi_use_intermediate(
// CHECK-NEXT:    %[[M:\w+]] = graph.matmul
// CHECK-NEXT:    %[[R:\w+]] = graph.relu %[[M]]
// CHECK-NEXT:    %[[S:\w+]] = graph.sigmoid %[[M]]
// CHECK-NEXT:    func.return %[[R]], %[[S]]
// CHECK-NOT:     graph.fused
func.func @multi_use_intermediate(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = graph.relu %0 : tensor<4x8xf32>
  %2 = graph.sigmoid %0 : tensor<4x8xf32>
  func.return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// Negative: a result of the function is a use outside any group; the matmul stays alone and
// relu + tanh make an injective group of their own.
// CHECK-LABEL: func.func @graph_output_intermediate(
// CHECK-NEXT:    %[[M:\w+]] = graph.matmul
// CHECK-NEXT:    %[[T:\w+]] = graph.fused "relu_tanh" (%[[M]])
// CHECK:         func.return %[[M]], %[[T]]
func.func @graph_output_intermediate(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = graph.relu %0 : tensor<4x8xf32>
  %2 = graph.tanh %1 : tensor<4x8xf32>
  func.return %0, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// Both uses of the matmul's result are in one op: x * x still fuses.
// CHECK-LABEL: func.func @square(
// CHECK-NEXT:    graph.fused "matmul_mul"
// CHECK:           %[[M:\w+]] = graph.matmul
// CHECK-NEXT:      graph.mul %[[M]], %[[M]]
func.func @square(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = graph.mul %0, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %1 : tensor<4x8xf32>
}

// A diamond: the conv's result is read by the sigmoid and by the mul that joins them
// (SiLU), so the group closes at the mul; GELU's erf form (x read by the div and the mul)
// likewise. An op of another branch in between (the relu of %y) stays outside.
// CHECK-LABEL: func.func @silu_gelu(
// CHECK-NEXT:    %[[R:\w+]] = graph.relu %{{\w+}}
// CHECK-NEXT:    %[[S:\w+]] = graph.fused "conv_sigmoid_mul" ({{.*}}) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
// CHECK:           %[[C:\w+]] = graph.conv
// CHECK-NEXT:      %[[G:\w+]] = graph.sigmoid %[[C]]
// CHECK-NEXT:      %[[P:\w+]] = graph.mul %[[C]], %[[G]]
// CHECK-NEXT:      graph.yield %[[P]]
// CHECK:         %[[E:\w+]] = graph.fused "matmul_div_erf_add_mul_mul" ({{.*}}) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4x8xf32> {
// CHECK:         func.return %[[R]], %[[S]], %[[E]]
func.func @silu_gelu(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %y: tensor<1x2x4x4xf32>, %a: tensor<4x8xf32>, %b: tensor<8x8xf32>, %sqrt2: tensor<f32>, %one: tensor<f32>, %half: tensor<f32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<4x8xf32>) {
  %0 = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = graph.relu %y : tensor<1x2x4x4xf32>
  %1 = graph.sigmoid %0 : tensor<1x2x4x4xf32>
  %2 = graph.mul %0, %1 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %m = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %d = graph.div %m, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = graph.erf %d : tensor<4x8xf32>
  %p = graph.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %q = graph.mul %m, %p : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = graph.mul %q, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %r, %2, %h : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<4x8xf32>
}

// An epilogue must keep the anchor's shape: the add that broadcasts the 2x1 sum up to 4x2x3
// starts an injective group instead.
// CHECK-LABEL: func.func @broadcast_up_ends_the_epilogue(
// CHECK-NEXT:    %[[R:\w+]] = graph.fused "reduce_sum_exp" ({{.*}}) : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK:         graph.fused "add_neg" (%[[R]], %{{\w+}}) : (tensor<2x1xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
func.func @broadcast_up_ends_the_epilogue(%x: tensor<2x3xf32>, %y: tensor<4x2x3xf32>) -> tensor<4x2x3xf32> {
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  %1 = graph.exp %0 : tensor<2x1xf32>
  %2 = graph.add %1, %y : (tensor<2x1xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %3 = graph.neg %2 : tensor<4x2x3xf32>
  func.return %3 : tensor<4x2x3xf32>
}

// An injective chain through a broadcast, a reshape and a transpose: one group.
// CHECK-LABEL: func.func @injective_chain(
// CHECK-SAME:      %[[X:\w+]]: tensor<2x3x4xf32>, %[[B:\w+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[R:\w+]] = graph.fused "add_reshape_transpose_sigmoid" (%[[X]], %[[B]]) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<4x6xf32> {
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.reshape
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.sigmoid
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @injective_chain(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<4x6xf32> {
  %0 = graph.add %x, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %1 = graph.reshape %0 : tensor<2x3x4xf32> to tensor<6x4xf32>
  %2 = graph.transpose %1 {perm = array<i64: 1, 0>} : tensor<6x4xf32> -> tensor<4x6xf32>
  %3 = graph.sigmoid %2 : tensor<4x6xf32>
  func.return %3 : tensor<4x6xf32>
}

// Anchors choose first: the add goes with the conv, not with the exp before it.
// CHECK-LABEL: func.func @anchor_first(
// CHECK-NEXT:    %[[E:\w+]] = graph.exp
// CHECK-NEXT:    graph.fused "conv_add" (%{{\w+}}, %{{\w+}}, %[[E]])
func.func @anchor_first(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = graph.exp %y : tensor<1x2x4x4xf32>
  %1 = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.add %0, %1 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %2 : tensor<1x2x4x4xf32>
}

// A second result of the anchor used after the group is a result of the group too.
// CHECK-LABEL: func.func @layer_norm_mean_escapes(
// CHECK-NEXT:    %[[MEAN:\w+]], %[[Y:\w+]] = graph.fused "layer_norm_relu" ({{.*}}) : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x1xf32>, tensor<2x4xf32>) {
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      %[[LY:\w+]], %[[LM:\w+]], %{{\w+}} = graph.layer_norm
// CHECK-NEXT:      %[[R:\w+]] = graph.relu %[[LY]]
// CHECK-NEXT:      graph.yield %[[LM]], %[[R]] : tensor<2x1xf32>, tensor<2x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[N:\w+]] = graph.neg %[[MEAN]]
// CHECK-NEXT:    func.return %[[Y]], %[[N]]
func.func @layer_norm_mean_escapes(%x: tensor<2x4xf32>, %g: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>) {
  %y, %mean, %inv = graph.layer_norm %x, %g {axis = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %0 = graph.relu %y : tensor<2x4xf32>
  %1 = graph.neg %mean : tensor<2x1xf32>
  func.return %0, %1 : tensor<2x4xf32>, tensor<2x1xf32>
}

// Negative: the mean is used before the relu, where the group would stand: no group.
// CHECK-LABEL: func.func @layer_norm_mean_used_before(
// CHECK-NEXT:    graph.layer_norm
// CHECK-NEXT:    graph.neg
// CHECK-NEXT:    graph.relu
// CHECK-NEXT:    func.return
func.func @layer_norm_mean_used_before(%x: tensor<2x4xf32>, %g: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>) {
  %y, %mean, %inv = graph.layer_norm %x, %g {axis = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %0 = graph.neg %mean : tensor<2x1xf32>
  %1 = graph.relu %y : tensor<2x4xf32>
  func.return %1, %0 : tensor<2x4xf32>, tensor<2x1xf32>
}

// An LSTM cell's c' = sigmoid(f) * c + sigmoid(i) * tanh(g), each gate a slice of %gates:
// the chain from the first slice (slice, sigmoid, mul, add) also takes, as a tree, every
// injective op whose result only the group reads: one group, not five.
// CHECK-LABEL: func.func @gate_tree(
// CHECK-SAME:      %[[G:\w+]]: tensor<2x12xf32>, %[[C:\w+]]: tensor<2x4xf32>)
// CHECK-NEXT:    %[[R:\w+]] = graph.fused "slice_slice_slice_sigmoid_sigmoid_tanh_mul_mul_add" (%[[G]], %[[C]])
// CHECK-NEXT:    ^bb0(%[[BG:\w+]]: tensor<2x12xf32>, %[[BC:\w+]]: tensor<2x4xf32>):
// CHECK-NEXT:      %[[I:\w+]] = graph.slice %[[BG]] {starts = array<i64: 0, 0>
// CHECK-NEXT:      %[[F:\w+]] = graph.slice %[[BG]] {starts = array<i64: 0, 4>
// CHECK-NEXT:      %[[GG:\w+]] = graph.slice %[[BG]] {starts = array<i64: 0, 8>
// CHECK-NEXT:      %[[SI:\w+]] = graph.sigmoid %[[I]]
// CHECK-NEXT:      %[[SF:\w+]] = graph.sigmoid %[[F]]
// CHECK-NEXT:      %[[TG:\w+]] = graph.tanh %[[GG]]
// CHECK-NEXT:      %[[K:\w+]] = graph.mul %[[SF]], %[[BC]]
// CHECK-NEXT:      %[[N:\w+]] = graph.mul %[[SI]], %[[TG]]
// CHECK-NEXT:      %[[S:\w+]] = graph.add %[[K]], %[[N]]
// CHECK-NEXT:      graph.yield %[[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @gate_tree(%gates: tensor<2x12xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %i = graph.slice %gates {starts = array<i64: 0, 0>, ends = array<i64: 2, 4>, steps = array<i64: 1, 1>} : tensor<2x12xf32> -> tensor<2x4xf32>
  %f = graph.slice %gates {starts = array<i64: 0, 4>, ends = array<i64: 2, 8>, steps = array<i64: 1, 1>} : tensor<2x12xf32> -> tensor<2x4xf32>
  %g = graph.slice %gates {starts = array<i64: 0, 8>, ends = array<i64: 2, 12>, steps = array<i64: 1, 1>} : tensor<2x12xf32> -> tensor<2x4xf32>
  %si = graph.sigmoid %i : tensor<2x4xf32>
  %sf = graph.sigmoid %f : tensor<2x4xf32>
  %tg = graph.tanh %g : tensor<2x4xf32>
  %kept = graph.mul %sf, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %new = graph.mul %si, %tg : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = graph.add %kept, %new : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}
