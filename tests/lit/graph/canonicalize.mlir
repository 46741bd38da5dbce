// RUN: minitvm-opt %s -p graph-canonicalize | filecheck %s

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %[[X]] : tensor<2x3x4xf32> to tensor<24xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<24xf32>
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = graph.reshape %x : tensor<2x3x4xf32> to tensor<6x4xf32>
  %1 = graph.reshape %0 : tensor<6x4xf32> to tensor<24xf32>
  func.return %1 : tensor<24xf32>
}

// A reshape pair that restores the input shape disappears altogether.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    func.return %[[X]] : tensor<2x3xf32>
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %x : tensor<2x3xf32> to tensor<3x2xf32>
  %1 = graph.reshape %0 : tensor<3x2xf32> to tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// The inner reshape has another user: it stays, the outer one reads the input directly.
// CHECK-LABEL: func.func @reshape_of_shared_reshape
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[A:.*]] = graph.reshape %[[X]] : tensor<2x3x4xf32> to tensor<6x4xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %[[X]] : tensor<2x3x4xf32> to tensor<4x6xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<6x4xf32>, tensor<4x6xf32>
func.func @reshape_of_shared_reshape(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x6xf32>) {
  %0 = graph.reshape %x : tensor<2x3x4xf32> to tensor<6x4xf32>
  %1 = graph.reshape %0 : tensor<6x4xf32> to tensor<4x6xf32>
  func.return %0, %1 : tensor<6x4xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: func.func @same_type_reshape_expand_cast
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    func.return %[[X]] : tensor<2x3xf32>
func.func @same_type_reshape_expand_cast(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %x : tensor<2x3xf32> to tensor<2x3xf32>
  %1 = graph.expand %0 : tensor<2x3xf32> to tensor<2x3xf32>
  %2 = graph.cast %1 : tensor<2x3xf32> to tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// Negative: a cast that changes the element type and an expand that broadcast stay.
// CHECK-LABEL: func.func @real_cast_and_expand
// CHECK-SAME:    (%[[X:.*]]: tensor<3x1xf32>)
// CHECK-NEXT:    %[[C:.*]] = graph.cast %[[X]] : tensor<3x1xf32> to tensor<3x1xf16>
// CHECK-NEXT:    %[[E:.*]] = graph.expand %[[C]] : tensor<3x1xf16> to tensor<2x3x4xf16>
// CHECK-NEXT:    func.return %[[E]] : tensor<2x3x4xf16>
func.func @real_cast_and_expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf16> {
  %0 = graph.cast %x : tensor<3x1xf32> to tensor<3x1xf16>
  %1 = graph.expand %0 : tensor<3x1xf16> to tensor<2x3x4xf16>
  func.return %1 : tensor<2x3x4xf16>
}

// Result dim i of the pair is x's dim p[q[i]]: p = [1, 2, 0], q = [1, 0, 2] give [2, 1, 0].
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[X]] {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT:    func.return %[[T]] : tensor<4x3x2xf32>
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 0, 2>} : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  func.return %1 : tensor<4x3x2xf32>
}

// CHECK-LABEL: func.func @transpose_pair_cancels
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    func.return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_pair_cancels(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = graph.transpose %0 {perm = array<i64: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  func.return %1 : tensor<2x3x4xf32>
}

// An identity permutation is removed even when the shape has equal dims; a real one stays.
// CHECK-LABEL: func.func @identity_transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<3x3xf32>)
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[X]] {perm = array<i64: 1, 0>} : tensor<3x3xf32> -> tensor<3x3xf32>
// CHECK-NEXT:    func.return %[[T]] : tensor<3x3xf32>
func.func @identity_transpose(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 0, 1>} : tensor<3x3xf32> -> tensor<3x3xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 0>} : tensor<3x3xf32> -> tensor<3x3xf32>
  func.return %1 : tensor<3x3xf32>
}

// A transpose that moves only unit dims keeps the elements in order: a reshape. One that
// swaps two dims other than 1 stays, whatever unit dims sit between them.
// CHECK-LABEL: func.func @unit_dims_transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<64x2x1x256xf32>, %[[Y:.*]]: tensor<2x1x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %[[X]] : tensor<64x2x1x256xf32> to tensor<64x1x2x256xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[Y]] {perm = array<i64: 2, 1, 0>} : tensor<2x1x3xf32> -> tensor<3x1x2xf32>
// CHECK-NEXT:    func.return %[[R]], %[[T]]
func.func @unit_dims_transpose(%x: tensor<64x2x1x256xf32>, %y: tensor<2x1x3xf32>) -> (tensor<64x1x2x256xf32>, tensor<3x1x2xf32>) {
  %0 = graph.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<64x2x1x256xf32> -> tensor<64x1x2x256xf32>
  %1 = graph.transpose %y {perm = array<i64: 2, 1, 0>} : tensor<2x1x3xf32> -> tensor<3x1x2xf32>
  func.return %0, %1 : tensor<64x1x2x256xf32>, tensor<3x1x2xf32>
}

// CHECK-LABEL: func.func @add_sub_zero
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    func.return %[[X]] : tensor<2x3xf32>
func.func @add_sub_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %z = graph.constant dense<0.000000e+00> : tensor<3xf32>
  %0 = graph.add %x, %z : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = graph.add %z, %0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = graph.sub %1, %z : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @add_zero_integer
// CHECK-SAME:    (%[[X:.*]]: tensor<4xi64>)
// CHECK-NEXT:    func.return %[[X]] : tensor<4xi64>
func.func @add_zero_integer(%x: tensor<4xi64>) -> tensor<4xi64> {
  %z = graph.constant dense<0> : tensor<4xi64>
  %0 = graph.add %x, %z : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  func.return %0 : tensor<4xi64>
}

// Negative: 0 - x is a negation; zeros that broadcast x to a bigger shape change the
// result type; a non-zero splat is no identity.
// CHECK-LABEL: func.func @add_sub_not_identity
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>)
// CHECK-DAG:     %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:     %[[H:.*]] = graph.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK:         %[[A:.*]] = graph.sub %[[Z]], %[[X]]
// CHECK-NEXT:    %[[B:.*]] = graph.add %[[X]], %[[Z]]
// CHECK-NEXT:    %[[C:.*]] = graph.add %[[X]], %[[H]]
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]]
func.func @add_sub_not_identity(%x: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) {
  %z = graph.constant dense<0.000000e+00> : tensor<2x3xf32>
  %h = graph.constant dense<5.000000e-01> : tensor<3xf32>
  %0 = graph.sub %z, %x : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = graph.add %x, %z : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = graph.add %x, %h : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @mul_div_one
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    func.return %[[X]] : tensor<2x3xf32>
func.func @mul_div_one(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %one = graph.constant dense<1.000000e+00> : tensor<1x1xf32>
  %0 = graph.mul %x, %one : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  %1 = graph.mul %one, %0 : (tensor<1x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = graph.div %1, %one : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// Negative: 1 / x is a reciprocal.
// CHECK-LABEL: func.func @one_div_x
// CHECK-SAME:    (%[[X:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[ONE:.*]] = graph.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[D:.*]] = graph.div %[[ONE]], %[[X]]
// CHECK-NEXT:    func.return %[[D]]
func.func @one_div_x(%x: tensor<2xf32>) -> tensor<2xf32> {
  %one = graph.constant dense<1.000000e+00> : tensor<2xf32>
  %0 = graph.div %one, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// A slice covering every element in order; a reversed dim of size 1 is still in order.
// CHECK-LABEL: func.func @full_slice
// CHECK-SAME:    (%[[X:.*]]: tensor<4x1xf32>)
// CHECK-NEXT:    func.return %[[X]] : tensor<4x1xf32>
func.func @full_slice(%x: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 1>, steps = array<i64: 1, 1>} : tensor<4x1xf32> -> tensor<4x1xf32>
  %1 = graph.slice %0 {starts = array<i64: 0, 0>, ends = array<i64: 4, -1>, steps = array<i64: 1, -1>} : tensor<4x1xf32> -> tensor<4x1xf32>
  func.return %1 : tensor<4x1xf32>
}

// Negative: a reversal keeps the shape but not the order; a strided slice drops elements.
// CHECK-LABEL: func.func @partial_slices
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.slice %[[X]] {starts = array<i64: 3>, ends = array<i64: -1>, steps = array<i64: -1>}
// CHECK-NEXT:    %[[S:.*]] = graph.slice %[[R]] {starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 2>}
// CHECK-NEXT:    func.return %[[S]]
func.func @partial_slices(%x: tensor<4xf32>) -> tensor<2xf32> {
  %0 = graph.slice %x {starts = array<i64: 3>, ends = array<i64: -1>, steps = array<i64: -1>} : tensor<4xf32> -> tensor<4xf32>
  %1 = graph.slice %0 {starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 2>} : tensor<4xf32> -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[C:.*]] = graph.concat %[[X]], %[[X]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %[[X]], %[[C]]
func.func @concat(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>) {
  %0 = graph.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = graph.concat %0, %0 {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<4x3xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[P:.*]] = graph.pad %[[X]] {pads = array<i64: 0, 1, 0, 0>, mode = "edge"} : tensor<2x3xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[P]]
func.func @pad(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %0 = graph.pad %x {pads = array<i64: 0, 0, 0, 0>, value = 1.000000e+00 : f32} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = graph.pad %0 {pads = array<i64: 0, 1, 0, 0>, mode = "edge"} : tensor<2x3xf32> -> tensor<2x4xf32>
  func.return %1 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @tile
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[T:.*]] = graph.tile %[[X]] {repeats = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %[[T]]
func.func @tile(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = graph.tile %x {repeats = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = graph.tile %0 {repeats = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
  func.return %1 : tensor<4x3xf32>
}

// Patterns compose: removing the no-op tile exposes a reshape pair, then an identity.
// CHECK-LABEL: func.func @cascade
// CHECK-SAME:    (%[[X:.*]]: tensor<6xf32>)
// CHECK-NEXT:    func.return %[[X]] : tensor<6xf32>
func.func @cascade(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = graph.reshape %x : tensor<6xf32> to tensor<2x3xf32>
  %1 = graph.tile %0 {repeats = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = graph.reshape %1 : tensor<2x3xf32> to tensor<6xf32>
  func.return %2 : tensor<6xf32>
}

// A result without elements is an empty constant, whatever computes it (here a conv of an
// empty batch and the relu after it); a reduction over an empty set is not empty: it stays.
// CHECK-LABEL: func.func @empty_results
// CHECK-SAME:    (%[[X:.*]]: tensor<0x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[E:.*]]: tensor<2x0xf32>)
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<> : tensor<0x4x6x6xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.reduce_sum %[[E]] {axes = array<i64: 1>} : tensor<2x0xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    func.return %[[C]], %[[S]] : tensor<0x4x6x6xf32>, tensor<2x1xf32>
func.func @empty_results(%x: tensor<0x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<2x0xf32>) -> (tensor<0x4x6x6xf32>, tensor<2x1xf32>) {
  %0 = graph.conv %x, %w : (tensor<0x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<0x4x6x6xf32>
  %1 = graph.relu %0 : tensor<0x4x6x6xf32>
  %2 = graph.reduce_sum %e {axes = array<i64: 1>} : tensor<2x0xf32> -> tensor<2x1xf32>
  func.return %1, %2 : tensor<0x4x6x6xf32>, tensor<2x1xf32>
}

// A concat drops its operands without elements.
// CHECK-LABEL: func.func @concat_of_empty
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x0xf32>, %[[C:.*]]: tensor<2x1xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.concat %[[A]], %[[C]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @concat_of_empty(%a: tensor<2x3xf32>, %b: tensor<2x0xf32>, %c: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %0 = graph.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// With one operand left, the concat is that operand.
// CHECK-LABEL: func.func @concat_of_one_non_empty
// CHECK-SAME:    (%[[A:.*]]: tensor<0x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    func.return %[[B]] : tensor<2x3xf32>
func.func @concat_of_one_non_empty(%a: tensor<0x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.concat %a, %b {axis = 0 : i64} : (tensor<0x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// Pow by a constant 1, 2 or 3 (every element of the exponent that number) is the base, its
// square or its cube by multiplications (no libm pow per element); another exponent, one
// that broadcasts the base to a bigger shape, and an integer base stay.
// CHECK-LABEL: func.func @pow_by_small_integers
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[N:.*]]: tensor<2x3xi32>)
// CHECK-NEXT:    %[[HALF:.*]] = graph.constant dense<5.000000e-01> : tensor<1xf32>
// CHECK-NEXT:    %[[TWOS:.*]] = graph.constant dense<2.000000e+00> : tensor<4x2x3xf32>
// CHECK-NEXT:    %[[ITWO:.*]] = graph.constant dense<2> : tensor<1xi32>
// CHECK-NEXT:    %[[SQUARE:.*]] = graph.mul %[[X]], %[[X]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[SQUARE2:.*]] = graph.mul %[[X]], %[[X]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[CUBE:.*]] = graph.mul %[[SQUARE2]], %[[X]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[ROOT:.*]] = graph.pow %[[X]], %[[HALF]] : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[WIDER:.*]] = graph.pow %[[X]], %[[TWOS]] : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    %[[INT:.*]] = graph.pow %[[N]], %[[ITWO]] : (tensor<2x3xi32>, tensor<1xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    func.return %[[X]], %[[SQUARE]], %[[CUBE]], %[[ROOT]], %[[WIDER]], %[[INT]] :
func.func @pow_by_small_integers(%x: tensor<2x3xf32>, %n: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xi32>) {
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %two = graph.constant dense<2.000000e+00> : tensor<1x1xf32>
  %three = graph.constant dense<3.000000e+00> : tensor<3xf32>
  %half = graph.constant dense<5.000000e-01> : tensor<1xf32>
  %twos = graph.constant dense<2.000000e+00> : tensor<4x2x3xf32>
  %itwo = graph.constant dense<2> : tensor<1xi32>
  %0 = graph.pow %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = graph.pow %x, %two : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
  %2 = graph.pow %x, %three : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = graph.pow %x, %half : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %4 = graph.pow %x, %twos : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %5 = graph.pow %n, %itwo : (tensor<2x3xi32>, tensor<1xi32>) -> tensor<2x3xi32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xi32>
}
