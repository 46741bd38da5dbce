// One case per verifier error of the graph dialect, each pinned to its exact message.
//
// With --verify-diagnostics, xDSL 0.75 prints for a chunk that fails to verify: the message
// (one line, or more for xDSL's own constraint errors), then the chunk in generic form with the
// failing op underlined (^^^---) and the message repeated beneath it as
// "| Operation does not verify: <message>"; every chunk after the first starts with the
// separator line. The exit code is 0, so each case checks its own separator and message.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Elementwise: shapes must broadcast.
// CHECK:      {{^}}graph.add: shapes 2x3, 4 do not broadcast (dimension 1){{$}}
// CHECK:      = "graph.add"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.add: shapes 2x3, 4 do not broadcast (dimension 1){{$}}
func.func @add_broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  %0 = graph.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// Elementwise: both operands of a binary op share an element type.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.add: operands have different element types (f32 and i64); insert a graph.cast{{$}}
// CHECK:      = "graph.add"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.add: operands have different element types (f32 and i64); insert a graph.cast{{$}}
func.func @add_element_types(%x: tensor<2x3xf32>, %y: tensor<2x3xi64>) {
  %0 = graph.add %x, %y : (tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  func.return
}

// -----

// Every op: the declared result type must be the inferred one.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.add: result should be tensor<2x3xf32> but is declared tensor<2x4xf32>{{$}}
// CHECK:      = "graph.add"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.add: result should be tensor<2x3xf32> but is declared tensor<2x4xf32>{{$}}
func.func @add_declared_result(%x: tensor<2x3xf32>) {
  %0 = graph.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// Logical ops take booleans only.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.and: each operand must be a boolean (i1) tensor, got tensor<2x3xf32> (compare or cast to i1 first){{$}}
// CHECK:      = "graph.and"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.and: each operand must be a boolean (i1) tensor, got tensor<2x3xf32> (compare or cast to i1 first){{$}}
func.func @and_float(%x: tensor<2x3xf32>) {
  %0 = graph.and %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return
}

// -----

// Bit operations take integers (not i1).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.bitwise_and: each operand must be an integer (not i1) tensor, got tensor<2x3xi1>{{$}}
// CHECK:      = "graph.bitwise_and"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.bitwise_and: each operand must be an integer (not i1) tensor, got tensor<2x3xi1>{{$}}
func.func @bitwise_bool(%x: tensor<2x3xi1>) {
  %0 = graph.bitwise_and %x, %x : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  func.return
}

// -----

// graph.bit_shift shifts left or right.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.bit_shift: direction must be "left" or "right", got "up"{{$}}
// CHECK:      = "graph.bit_shift"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.bit_shift: direction must be "left" or "right", got "up"{{$}}
func.func @bit_shift_direction(%x: tensor<2x3xui8>) {
  %0 = graph.bit_shift %x, %x {direction = "up"} : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  func.return
}

// -----

// graph.mod: fmod is 0 or 1.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.mod: fmod must be 0 or 1, got 2{{$}}
// CHECK:      = "graph.mod"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.mod: fmod must be 0 or 1, got 2{{$}}
func.func @mod_fmod(%x: tensor<2x3xi32>) {
  %0 = graph.mod %x, %x {fmod = 2 : i64} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return
}

// -----

// graph.celu divides by alpha.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.celu: alpha must not be 0 (the formula divides by it){{$}}
// CHECK:      = "graph.celu"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.celu: alpha must not be 0 (the formula divides by it){{$}}
func.func @celu_alpha(%x: tensor<2x3xf32>) {
  %0 = graph.celu %x {alpha = 0.000000e+00 : f32} : tensor<2x3xf32>
  func.return
}

// -----

// Float tests take floats.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.is_nan: input must be a float tensor, got tensor<2x3xi32> (cast it to a float type first){{$}}
// CHECK:      = "graph.is_nan"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.is_nan: input must be a float tensor, got tensor<2x3xi32> (cast it to a float type first){{$}}
func.func @is_nan_int(%x: tensor<2x3xi32>) {
  %0 = graph.is_nan %x : tensor<2x3xi32> -> tensor<2x3xi1>
  func.return
}

// -----

// Comparisons produce i1.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.less: result should be tensor<2x3xi1> but is declared tensor<2x3xf32>{{$}}
// CHECK:      = "graph.less"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.less: result should be tensor<2x3xi1> but is declared tensor<2x3xf32>{{$}}
func.func @less_result_type(%x: tensor<2x3xf32>) {
  %0 = graph.less %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// graph.pow raises numbers, not booleans.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.pow: exponent must be a numeric tensor, got tensor<2x3xi1> (cast the booleans first){{$}}
// CHECK:      = "graph.pow"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.pow: exponent must be a numeric tensor, got tensor<2x3xi1> (cast the booleans first){{$}}
func.func @pow_bool(%x: tensor<2x3xi64>, %b: tensor<2x3xi1>) {
  %0 = graph.pow %x, %b : (tensor<2x3xi64>, tensor<2x3xi1>) -> tensor<2x3xi64>
  func.return
}

// -----

// Float-only unary ops reject integer tensors.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.relu: input must be a float tensor, got tensor<2x3xi64> (cast it to a float type first){{$}}
// CHECK:      = "graph.relu"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.relu: input must be a float tensor, got tensor<2x3xi64> (cast it to a float type first){{$}}
func.func @relu_ints(%x: tensor<2x3xi64>) {
  %0 = graph.relu %x : tensor<2x3xi64>
  func.return
}

// -----

// A unary op's result type is its operand type (an ODS-level constraint).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}result 'result' at position 0 does not verify:{{$}}
// CHECK-NEXT: {{^}}attribute tensor<2x3xf32> expected from variable 'T', but got tensor<3x2xf32>{{$}}
// CHECK:      = "graph.relu"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: result 'result' at position 0 does not verify:{{$}}
// CHECK-NEXT: | attribute tensor<2x3xf32> expected from variable 'T', but got tensor<3x2xf32>{{$}}
func.func @relu_result_type(%x: tensor<2x3xf32>) {
  %0 = "graph.relu"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gelu: approximate must be "none" or "tanh", got "fast"{{$}}
// CHECK:      = "graph.gelu"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gelu: approximate must be "none" or "tanh", got "fast"{{$}}
func.func @gelu_mode(%x: tensor<2x3xf32>) {
  %0 = graph.gelu %x {approximate = "fast"} : tensor<2x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.cast: cannot change the shape (2x3 to 3x2); use graph.reshape{{$}}
// CHECK:      = "graph.cast"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.cast: cannot change the shape (2x3 to 3x2); use graph.reshape{{$}}
func.func @cast_shape(%x: tensor<2x3xf32>) {
  %0 = graph.cast %x : tensor<2x3xf32> to tensor<3x2xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.cast: element type i4 is not supported{{$}}
// CHECK:      = "graph.cast"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.cast: element type i4 is not supported{{$}}
func.func @cast_element_type(%x: tensor<2x3xf32>) {
  %0 = graph.cast %x : tensor<2x3xf32> to tensor<2x3xi4>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.where: condition must be an i1 tensor, got tensor<2x3xf32>{{$}}
// CHECK:      = "graph.where"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.where: condition must be an i1 tensor, got tensor<2x3xf32>{{$}}
func.func @where_condition(%c: tensor<2x3xf32>, %x: tensor<2x3xf32>) {
  %0 = graph.where %c, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.where: branches have different element types (f32 and i64){{$}}
// CHECK:      = "graph.where"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.where: branches have different element types (f32 and i64){{$}}
func.func @where_branches(%c: tensor<2x3xi1>, %x: tensor<2x3xf32>, %y: tensor<2x3xi64>) {
  %0 = graph.where %c, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  func.return
}

// -----

// The slope broadcasts to the input, never the other way.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.prelu: slope of shape 1x2x3 does not broadcast to the input's shape 2x3{{$}}
// CHECK:      = "graph.prelu"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.prelu: slope of shape 1x2x3 does not broadcast to the input's shape 2x3{{$}}
func.func @prelu_slope(%x: tensor<2x3xf32>, %s: tensor<1x2x3xf32>) {
  %0 = graph.prelu %x, %s : (tensor<2x3xf32>, tensor<1x2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.matmul: lhs 2x3 has 3 columns but rhs 4x5 has 4 rows{{$}}
// CHECK:      = "graph.matmul"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.matmul: lhs 2x3 has 3 columns but rhs 4x5 has 4 rows{{$}}
func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.matmul: lhs must be a float tensor, or an integer tensor of at most 32 bits (accumulated in i32), got tensor<2x3xi64>{{$}}
// CHECK:      = "graph.matmul"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.matmul: lhs must be a float tensor, or an integer tensor of at most 32 bits (accumulated in i32), got tensor<2x3xi64>{{$}}
func.func @matmul_ints(%a: tensor<2x3xi64>, %b: tensor<3x4xi64>) {
  %0 = graph.matmul %a, %b : (tensor<2x3xi64>, tensor<3x4xi64>) -> tensor<2x4xi64>
  func.return
}

// -----

// Integer contractions: integer operands of at most 32 bits on both sides, an i32 result.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.matmul: rhs must be an integer tensor of at most 32 bits as lhs is (an integer contraction accumulates in i32), got tensor<3x4xf32>{{$}}
// CHECK:      = "graph.matmul"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.matmul: rhs must be an integer tensor of at most 32 bits as lhs is (an integer contraction accumulates in i32), got tensor<3x4xf32>{{$}}
func.func @matmul_mixed(%a: tensor<2x3xi8>, %b: tensor<3x4xf32>) {
  %0 = graph.matmul %a, %b : (tensor<2x3xi8>, tensor<3x4xf32>) -> tensor<2x4xi32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.matmul: result should be tensor<2x4xi32> but is declared tensor<2x4xi16>{{$}}
// CHECK:      = "graph.matmul"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.matmul: result should be tensor<2x4xi32> but is declared tensor<2x4xi16>{{$}}
func.func @matmul_integer_result(%a: tensor<2x3xui8>, %b: tensor<3x4xi8>) {
  %0 = graph.matmul %a, %b : (tensor<2x3xui8>, tensor<3x4xi8>) -> tensor<2x4xi16>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: bias of an integer contraction must be i32 (its accumulator type), got tensor<8xf32>{{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: bias of an integer contraction must be i32 (its accumulator type), got tensor<8xf32>{{$}}
func.func @conv_integer_bias(%x: tensor<1x3x8x8xui8>, %w: tensor<8x3x3x3xi8>, %b: tensor<8xf32>) {
  %0 = graph.conv %x, %w, %b : (tensor<1x3x8x8xui8>, tensor<8x3x3x3xi8>, tensor<8xf32>) -> tensor<1x8x6x6xi32>
  func.return
}

// -----

// Pooling of integers: max pools only.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.avg_pool: input must be a float tensor, got tensor<1x1x4x4xui8>{{$}}
// CHECK:      = "graph.avg_pool"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.avg_pool: input must be a float tensor, got tensor<1x1x4x4xui8>{{$}}
func.func @avg_pool_integers(%x: tensor<1x1x4x4xui8>) {
  %0 = graph.avg_pool %x {kernel_shape = array<i64: 2, 2>} : tensor<1x1x4x4xui8> -> tensor<1x1x3x3xui8>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.max_pool_indices: storage_order must be 0 (row-major) or 1 (column-major), got 2{{$}}
// CHECK:      = "graph.max_pool_indices"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.max_pool_indices: storage_order must be 0 (row-major) or 1 (column-major), got 2{{$}}
func.func @max_pool_indices_order(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.max_pool_indices %x {kernel_shape = array<i64: 2, 2>, storage_order = 2 : i64} : tensor<1x1x4x4xf32> -> tensor<1x1x3x3xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.max_unpool: indices must be an i64 tensor of the input's shape 1x1x2x2, got tensor<1x1x2x2xi32>{{$}}
// CHECK:      = "graph.max_unpool"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.max_unpool: indices must be an i64 tensor of the input's shape 1x1x2x2, got tensor<1x1x2x2xi32>{{$}}
func.func @max_unpool_indices(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi32>) {
  %0 = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi32>) -> tensor<1x1x4x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.max_unpool: output 3x5 must have 2 sizes, each at least the pool's 4x4{{$}}
// CHECK:      = "graph.max_unpool"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.max_unpool: output 3x5 must have 2 sizes, each at least the pool's 4x4{{$}}
func.func @max_unpool_output(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  %0 = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, output = array<i64: 3, 5>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x3x5xf32>
  func.return
}

// -----

// graph.bitcast keeps the bit width; wrap padding needs elements to wrap around.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.bitcast: f32 has 32 bits but i64 has 64; the widths must agree{{$}}
// CHECK:      = "graph.bitcast"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.bitcast: f32 has 32 bits but i64 has 64; the widths must agree{{$}}
func.func @bitcast_width(%x: tensor<3xf32>) {
  %0 = graph.bitcast %x : tensor<3xf32> to tensor<3xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.pad: wrap padding cannot pad an empty dimension{{$}}
// CHECK:      = "graph.pad"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.pad: wrap padding cannot pad an empty dimension{{$}}
func.func @pad_wrap_empty(%x: tensor<0x3xf32>) {
  %0 = graph.pad %x {pads = array<i64: 1, 0, 0, 0>, mode = "wrap"} : tensor<0x3xf32> -> tensor<1x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gemm: op(A) is 2x3 but op(B) is 4x5{{$}}
// CHECK:      = "graph.gemm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gemm: op(A) is 2x3 but op(B) is 4x5{{$}}
func.func @gemm_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  %0 = graph.gemm %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

// trans_a applies before the inner dimensions are compared.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gemm: op(A) is 3x2 but op(B) is 3x4{{$}}
// CHECK:      = "graph.gemm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gemm: op(A) is 3x2 but op(B) is 3x4{{$}}
func.func @gemm_trans(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %0 = graph.gemm %a, %b {trans_a = 1 : i64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gemm: operands must be matrices, got 2x2x3 and 3x4{{$}}
// CHECK:      = "graph.gemm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gemm: operands must be matrices, got 2x2x3 and 3x4{{$}}
func.func @gemm_rank(%a: tensor<2x2x3xf32>, %b: tensor<3x4xf32>) {
  %0 = graph.gemm %a, %b : (tensor<2x2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gemm: bias 2x2x4 does not broadcast to 2x4{{$}}
// CHECK:      = "graph.gemm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gemm: bias 2x2x4 does not broadcast to 2x4{{$}}
func.func @gemm_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x2x4xf32>) {
  %0 = graph.gemm %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x2x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: input has 3 channels but weight expects 4 (4 per group x 1 groups){{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: input has 3 channels but weight expects 4 (4 per group x 1 groups){{$}}
func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<64x4x3x3xf32>) {
  %0 = graph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<64x4x3x3xf32>) -> tensor<1x64x6x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: group 4 must divide input channels 6 and output channels 4{{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: group 4 must divide input channels 6 and output channels 4{{$}}
func.func @conv_group(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  %0 = graph.conv %x, %w {group = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: bias must have shape 8, got 4{{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: bias must have shape 8, got 4{{$}}
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<4xf32>) {
  %0 = graph.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x6x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: input 1x3x8 and weight 8x3x3x3 must both have rank 3 to 5 (N, C, 1-3 spatial dims){{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: input 1x3x8 and weight 8x3x3x3 must both have rank 3 to 5 (N, C, 1-3 spatial dims){{$}}
func.func @conv_rank(%x: tensor<1x3x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %0 = graph.conv %x, %w : (tensor<1x3x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: strides has 1 entries but the input has 2 spatial dimensions (expected 2){{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: strides has 1 entries but the input has 2 spatial dimensions (expected 2){{$}}
func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %0 = graph.conv %x, %w {strides = array<i64: 2>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x3x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: kernel 3x3 is larger than the padded input 2x2{{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: kernel 3x3 is larger than the padded input 2x2{{$}}
func.func @conv_kernel(%x: tensor<1x3x2x2xf32>, %w: tensor<8x3x3x3xf32>) {
  %0 = graph.conv %x, %w : (tensor<1x3x2x2xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x1x1xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: weight has element type f16 but input has f32{{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: weight has element type f16 but input has f32{{$}}
func.func @conv_element_types(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf16>) {
  %0 = graph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf16>) -> tensor<1x8x6x6xf32>
  func.return
}

// -----

// The output size follows from strides and pads; a wrong declared type is caught.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv: result should be tensor<1x8x4x4xf32> but is declared tensor<1x8x8x8xf32>{{$}}
// CHECK:      = "graph.conv"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv: result should be tensor<1x8x4x4xf32> but is declared tensor<1x8x8x8xf32>{{$}}
func.func @conv_declared_result(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  %0 = graph.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_transpose: input has 8 channels but weight expects 4 (group 1){{$}}
// CHECK:      = "graph.conv_transpose"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_transpose: input has 8 channels but weight expects 4 (group 1){{$}}
func.func @conv_transpose_channels(%x: tensor<1x8x4x4xf32>, %w: tensor<4x4x3x3xf32>) {
  %0 = graph.conv_transpose %x, %w : (tensor<1x8x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.conv_transpose: output_padding needs 2 entries{{$}}
// CHECK:      = "graph.conv_transpose"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.conv_transpose: output_padding needs 2 entries{{$}}
func.func @conv_transpose_output_padding(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  %0 = graph.conv_transpose %x, %w {output_padding = array<i64: 1>} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.batch_norm: scale has shape 4 but the input has 3 channels{{$}}
// CHECK:      = "graph.batch_norm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.batch_norm: scale has shape 4 but the input has 3 channels{{$}}
func.func @batch_norm_scale(%x: tensor<1x3x4x4xf32>, %s: tensor<4xf32>, %c: tensor<3xf32>) {
  %0 = graph.batch_norm %x, %s, %c, %c, %c : (tensor<1x3x4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.batch_norm: variance has shape 1x3 but the input has 3 channels{{$}}
// CHECK:      = "graph.batch_norm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.batch_norm: variance has shape 1x3 but the input has 3 channels{{$}}
func.func @batch_norm_variance(%x: tensor<1x3x4x4xf32>, %c: tensor<3xf32>, %v: tensor<1x3xf32>) {
  %0 = graph.batch_norm %x, %c, %c, %c, %v : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<1x3x4x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layer_norm: axis 3 must be in [0, 3) (normalized){{$}}
// CHECK:      = "graph.layer_norm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layer_norm: axis 3 must be in [0, 3) (normalized){{$}}
func.func @layer_norm_axis(%x: tensor<2x8x16xf32>, %g: tensor<16xf32>) {
  %0:3 = graph.layer_norm %x, %g {axis = 3 : i64} : (tensor<2x8x16xf32>, tensor<16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>)
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layer_norm: scale 2x16 does not broadcast to the normalized dims 16{{$}}
// CHECK:      = "graph.layer_norm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layer_norm: scale 2x16 does not broadcast to the normalized dims 16{{$}}
func.func @layer_norm_scale(%x: tensor<2x8x16xf32>, %g: tensor<2x16xf32>) {
  %0:3 = graph.layer_norm %x, %g {axis = 2 : i64} : (tensor<2x8x16xf32>, tensor<2x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>)
  func.return
}

// -----

// Multi-result ops name the result that is wrong.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.layer_norm: result #1 should be tensor<2x8x1xf32> but is declared tensor<2x8xf32>{{$}}
// CHECK:      = "graph.layer_norm"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.layer_norm: result #1 should be tensor<2x8x1xf32> but is declared tensor<2x8xf32>{{$}}
func.func @layer_norm_stats(%x: tensor<2x8x16xf32>, %g: tensor<16xf32>) {
  %0:3 = graph.layer_norm %x, %g {axis = 2 : i64} : (tensor<2x8x16xf32>, tensor<16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8x1xf32>)
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.lrn: size must be >= 1{{$}}
// CHECK:      = "graph.lrn"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.lrn: size must be >= 1{{$}}
func.func @lrn_size(%x: tensor<1x3x4x4xf32>) {
  %0 = graph.lrn %x {size = 0 : i64} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.softmax: axis 2 must be in [0, 2) (normalized){{$}}
// CHECK:      = "graph.softmax"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.softmax: axis 2 must be in [0, 2) (normalized){{$}}
func.func @softmax_axis(%x: tensor<2x5xf32>) {
  %0 = graph.softmax %x {axis = 2 : i64} : tensor<2x5xf32> -> tensor<2x5xf32>
  func.return
}

// -----

// Axes are normalized by the frontend: negative ones are rejected.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.log_softmax: axis -1 must be in [0, 2) (normalized){{$}}
// CHECK:      = "graph.log_softmax"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.log_softmax: axis -1 must be in [0, 2) (normalized){{$}}
func.func @log_softmax_negative_axis(%x: tensor<2x5xf32>) {
  %0 = graph.log_softmax %x {axis = -1 : i64} : tensor<2x5xf32> -> tensor<2x5xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.max_pool: kernel_shape 2x2x2 does not match input 1x4x8x8 (N, C, 1-3 spatial dims){{$}}
// CHECK:      = "graph.max_pool"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.max_pool: kernel_shape 2x2x2 does not match input 1x4x8x8 (N, C, 1-3 spatial dims){{$}}
func.func @max_pool_kernel_rank(%x: tensor<1x4x8x8xf32>) {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x7x7xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.avg_pool: pads must be smaller than the kernel (2x2){{$}}
// CHECK:      = "graph.avg_pool"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.avg_pool: pads must be smaller than the kernel (2x2){{$}}
func.func @avg_pool_pads(%x: tensor<1x4x8x8xf32>) {
  %0 = graph.avg_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x11x11xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.global_avg_pool: input must have rank >= 3 (N, C, spatial...), got tensor<2x3xf32>{{$}}
// CHECK:      = "graph.global_avg_pool"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.global_avg_pool: input must have rank >= 3 (N, C, spatial...), got tensor<2x3xf32>{{$}}
func.func @global_avg_pool_rank(%x: tensor<2x3xf32>) {
  %0 = graph.global_avg_pool %x : tensor<2x3xf32> -> tensor<2x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reshape: cannot reshape 2x3 (6 elements) to 4x2 (8 elements){{$}}
// CHECK:      = "graph.reshape"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reshape: cannot reshape 2x3 (6 elements) to 4x2 (8 elements){{$}}
func.func @reshape_count(%x: tensor<2x3xf32>) {
  %0 = graph.reshape %x : tensor<2x3xf32> to tensor<4x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reshape: result element type i64 differs from the input's f32{{$}}
// CHECK:      = "graph.reshape"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reshape: result element type i64 differs from the input's f32{{$}}
func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  %0 = graph.reshape %x : tensor<2x3xf32> to tensor<6xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.expand: 1x3 does not broadcast to 2x1{{$}}
// CHECK:      = "graph.expand"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.expand: 1x3 does not broadcast to 2x1{{$}}
func.func @expand_shape(%x: tensor<1x3xf32>) {
  %0 = graph.expand %x : tensor<1x3xf32> to tensor<2x1xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.expand: 3x1 does not broadcast to 3{{$}}
// CHECK:      = "graph.expand"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.expand: 3x1 does not broadcast to 3{{$}}
func.func @expand_rank(%x: tensor<3x1xf32>) {
  %0 = graph.expand %x : tensor<3x1xf32> to tensor<3xf32>
  func.return
}

// -----

// Dimensions that are neither equal nor 1 fail in the broadcasting rule itself.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.expand: 3x2 does not broadcast to 3x4{{$}}
// CHECK:      = "graph.expand"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.expand: 3x2 does not broadcast to 3x4{{$}}
func.func @expand_incompatible(%x: tensor<3x2xf32>) {
  %0 = graph.expand %x : tensor<3x2xf32> to tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.transpose: perm [0, 0] is not a permutation of 0..1{{$}}
// CHECK:      = "graph.transpose"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.transpose: perm [0, 0] is not a permutation of 0..1{{$}}
func.func @transpose_perm(%x: tensor<2x3xf32>) {
  %0 = graph.transpose %x {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  func.return
}

// -----

// Required properties are checked before the op's own verifier runs.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}property 'perm' expected in operation 'graph.transpose'{{$}}
// CHECK:      = "graph.transpose"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: property 'perm' expected in operation 'graph.transpose'{{$}}
func.func @transpose_missing_perm(%x: tensor<2x3xf32>) {
  %0 = "graph.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.concat: input #1 has shape 3x5, which differs from input #0's 2x3 outside axis 1{{$}}
// CHECK:      = "graph.concat"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.concat: input #1 has shape 3x5, which differs from input #0's 2x3 outside axis 1{{$}}
func.func @concat_shapes(%x: tensor<2x3xf32>, %y: tensor<3x5xf32>) {
  %0 = graph.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.concat: input #1 has element type i64, input #0 f32{{$}}
// CHECK:      = "graph.concat"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.concat: input #1 has element type i64, input #0 f32{{$}}
func.func @concat_element_types(%x: tensor<2x3xf32>, %y: tensor<2x5xi64>) {
  %0 = graph.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xi64>) -> tensor<2x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.concat: axis 2 must be in [0, 2) (normalized){{$}}
// CHECK:      = "graph.concat"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.concat: axis 2 must be in [0, 2) (normalized){{$}}
func.func @concat_axis(%x: tensor<2x3xf32>) {
  %0 = graph.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.split: sizes [2, 2] do not add up to dim 1 of 2x5{{$}}
// CHECK:      = "graph.split"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.split: sizes [2, 2] do not add up to dim 1 of 2x5{{$}}
func.func @split_sizes(%x: tensor<2x5xf32>) {
  %0:2 = graph.split %x {axis = 1 : i64, sizes = array<i64: 2, 2>} : tensor<2x5xf32> -> tensor<2x2xf32>, tensor<2x2xf32>
  func.return
}

// -----

// One result per size.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.split: expected 2 results but the op has 1{{$}}
// CHECK:      = "graph.split"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.split: expected 2 results but the op has 1{{$}}
func.func @split_results(%x: tensor<2x5xf32>) {
  %0 = graph.split %x {axis = 1 : i64, sizes = array<i64: 2, 3>} : tensor<2x5xf32> -> tensor<2x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.slice: bounds [0, 11) step 1 of dim 0 are not clamped to its size 10{{$}}
// CHECK:      = "graph.slice"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.slice: bounds [0, 11) step 1 of dim 0 are not clamped to its size 10{{$}}
func.func @slice_bounds(%x: tensor<10x6xf32>) {
  %0 = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 11, 6>, steps = array<i64: 1, 1>} : tensor<10x6xf32> -> tensor<10x6xf32>
  func.return
}

// -----

// ONNX's negative indices are resolved by the frontend; only -1 (through index 0, with a
// negative step) is legal here.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.slice: bounds [-3, 10) step 1 of dim 0 are not clamped to its size 10{{$}}
// CHECK:      = "graph.slice"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.slice: bounds [-3, 10) step 1 of dim 0 are not clamped to its size 10{{$}}
func.func @slice_negative_start(%x: tensor<10x6xf32>) {
  %0 = graph.slice %x {starts = array<i64: -3, 0>, ends = array<i64: 10, 6>, steps = array<i64: 1, 1>} : tensor<10x6xf32> -> tensor<3x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.slice: step of dim 1 is 0{{$}}
// CHECK:      = "graph.slice"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.slice: step of dim 1 is 0{{$}}
func.func @slice_step(%x: tensor<10x6xf32>) {
  %0 = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 10, 6>, steps = array<i64: 1, 0>} : tensor<10x6xf32> -> tensor<10x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.slice: starts, ends and steps need 2 entries each (the input rank){{$}}
// CHECK:      = "graph.slice"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.slice: starts, ends and steps need 2 entries each (the input rank){{$}}
func.func @slice_rank(%x: tensor<10x6xf32>) {
  %0 = graph.slice %x {starts = array<i64: 0>, ends = array<i64: 5>, steps = array<i64: 1>} : tensor<10x6xf32> -> tensor<5x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gather: indices must be i32 or i64, got f32{{$}}
// CHECK:      = "graph.gather"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gather: indices must be i32 or i64, got f32{{$}}
func.func @gather_indices(%x: tensor<10x6xf32>, %i: tensor<2xf32>) {
  %0 = graph.gather %x, %i {axis = 0 : i64} : (tensor<10x6xf32>, tensor<2xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gather: axis 2 must be in [0, 2) (normalized){{$}}
// CHECK:      = "graph.gather"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gather: axis 2 must be in [0, 2) (normalized){{$}}
func.func @gather_axis(%x: tensor<10x6xf32>, %i: tensor<2xi64>) {
  %0 = graph.gather %x, %i {axis = 2 : i64} : (tensor<10x6xf32>, tensor<2xi64>) -> tensor<10x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gather_elements: indices 2 have rank 1, the input 3x4 rank 2: they must agree{{$}}
// CHECK:      = "graph.gather_elements"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gather_elements: indices 2 have rank 1, the input 3x4 rank 2: they must agree{{$}}
func.func @gather_elements_rank(%x: tensor<3x4xf32>, %i: tensor<2xi64>) {
  %0 = graph.gather_elements %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gather_elements: indices 2x5 exceeds data 3x4 in dim 1 (5 > 4); only dim 0 (axis) may differ{{$}}
// CHECK:      = "graph.gather_elements"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gather_elements: indices 2x5 exceeds data 3x4 in dim 1 (5 > 4); only dim 0 (axis) may differ{{$}}
func.func @gather_elements_shape(%x: tensor<3x4xf32>, %i: tensor<2x5xi64>) {
  %0 = graph.gather_elements %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gather_nd: the batch dims (the first 1, batch_dims) of input 2x3x4 and indices 3x1 differ{{$}}
// CHECK:      = "graph.gather_nd"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gather_nd: the batch dims (the first 1, batch_dims) of input 2x3x4 and indices 3x1 differ{{$}}
func.func @gather_nd_batch(%x: tensor<2x3x4xf32>, %i: tensor<3x1xi64>) {
  %0 = graph.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.gather_nd: index tuples have 3 entries (indices' last dim); input 3x4 with 0 batch dims takes 1 to 2{{$}}
// CHECK:      = "graph.gather_nd"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.gather_nd: index tuples have 3 entries (indices' last dim); input 3x4 with 0 batch dims takes 1 to 2{{$}}
func.func @gather_nd_tuple(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>) {
  %0 = graph.gather_nd %x, %i : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.scatter_elements: updates 2x3 must have the shape of indices 2x4{{$}}
// CHECK:      = "graph.scatter_elements"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.scatter_elements: updates 2x3 must have the shape of indices 2x4{{$}}
func.func @scatter_elements_updates(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x3xf32>) {
  %0 = graph.scatter_elements %x, %i, %u {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x3xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.scatter_elements: reduction "sum" is not one of none, add, mul, max, min{{$}}
// CHECK:      = "graph.scatter_elements"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.scatter_elements: reduction "sum" is not one of none, add, mul, max, min{{$}}
func.func @scatter_elements_reduction(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) {
  %0 = graph.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "sum"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.scatter_nd: updates must have shape 2x4 (indices.shape[:-1] + input.shape[1:]), got 2x3{{$}}
// CHECK:      = "graph.scatter_nd"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.scatter_nd: updates must have shape 2x4 (indices.shape[:-1] + input.shape[1:]), got 2x3{{$}}
func.func @scatter_nd_updates(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) {
  %0 = graph.scatter_nd %x, %i, %u : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.scatter_nd: updates have element type f16 but the input f32{{$}}
// CHECK:      = "graph.scatter_nd"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.scatter_nd: updates have element type f16 but the input f32{{$}}
func.func @scatter_nd_element_type(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf16>) {
  %0 = graph.scatter_nd %x, %i, %u : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf16>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.scatter_nd: indices must be i32 or i64, got f32{{$}}
// CHECK:      = "graph.scatter_nd"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.scatter_nd: indices must be i32 or i64, got f32{{$}}
func.func @scatter_nd_indices(%x: tensor<3x4xf32>, %i: tensor<2x1xf32>, %u: tensor<2x4xf32>) {
  %0 = graph.scatter_nd %x, %i, %u : (tensor<3x4xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.cum_sum: exclusive must be 0 or 1, got 2{{$}}
// CHECK:      = "graph.cum_sum"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.cum_sum: exclusive must be 0 or 1, got 2{{$}}
func.func @cum_sum_flag(%x: tensor<3x4xf32>) {
  %0 = graph.cum_sum %x {axis = 1 : i64, exclusive = 2 : i64} : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.cum_prod: input must be a numeric tensor, got tensor<3x4xi1> (cast the booleans first){{$}}
// CHECK:      = "graph.cum_prod"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.cum_prod: input must be a numeric tensor, got tensor<3x4xi1> (cast the booleans first){{$}}
func.func @cum_prod_bool(%x: tensor<3x4xi1>) {
  %0 = graph.cum_prod %x {axis = 0 : i64} : tensor<3x4xi1> -> tensor<3x4xi1>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reverse_sequence: batch_axis 1 and time_axis 2 must be 0 and 1, one each{{$}}
// CHECK:      = "graph.reverse_sequence"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reverse_sequence: batch_axis 1 and time_axis 2 must be 0 and 1, one each{{$}}
func.func @reverse_sequence_axes(%x: tensor<3x4x2xf32>, %n: tensor<4xi64>) {
  %0 = graph.reverse_sequence %x, %n {batch_axis = 1 : i64, time_axis = 2 : i64} : (tensor<3x4x2xf32>, tensor<4xi64>) -> tensor<3x4x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reverse_sequence: sequence_lens must have shape 4 (dim 1 of the input, batch_axis), got 3{{$}}
// CHECK:      = "graph.reverse_sequence"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reverse_sequence: sequence_lens must have shape 4 (dim 1 of the input, batch_axis), got 3{{$}}
func.func @reverse_sequence_lens(%x: tensor<3x4xf32>, %n: tensor<3xi64>) {
  %0 = graph.reverse_sequence %x, %n {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.pad: mode "circular" is not one of constant, reflect, edge, wrap{{$}}
// CHECK:      = "graph.pad"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.pad: mode "circular" is not one of constant, reflect, edge, wrap{{$}}
func.func @pad_mode(%x: tensor<2x3xf32>) {
  %0 = graph.pad %x {pads = array<i64: 1, 1, 1, 1>, mode = "circular"} : tensor<2x3xf32> -> tensor<4x5xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.pad: pads needs 4 non-negative entries, got [1, 1]{{$}}
// CHECK:      = "graph.pad"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.pad: pads needs 4 non-negative entries, got [1, 1]{{$}}
func.func @pad_count(%x: tensor<2x3xf32>) {
  %0 = graph.pad %x {pads = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.pad: pads needs 4 non-negative entries, got [0, -1, 0, 0]{{$}}
// CHECK:      = "graph.pad"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.pad: pads needs 4 non-negative entries, got [0, -1, 0, 0]{{$}}
func.func @pad_negative(%x: tensor<2x3xf32>) {
  %0 = graph.pad %x {pads = array<i64: 0, -1, 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.pad: reflect padding must be smaller than the padded dimension{{$}}
// CHECK:      = "graph.pad"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.pad: reflect padding must be smaller than the padded dimension{{$}}
func.func @pad_reflect(%x: tensor<2x3xf32>) {
  %0 = graph.pad %x {pads = array<i64: 2, 0, 0, 0>, mode = "reflect"} : tensor<2x3xf32> -> tensor<4x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.tile: repeats needs 2 non-negative entries, got [2]{{$}}
// CHECK:      = "graph.tile"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.tile: repeats needs 2 non-negative entries, got [2]{{$}}
func.func @tile_repeats(%x: tensor<2x3xf32>) {
  %0 = graph.tile %x {repeats = array<i64: 2>} : tensor<2x3xf32> -> tensor<4x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_sum: axes [2, 1] must be non-empty and sorted{{$}}
// CHECK:      = "graph.reduce_sum"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_sum: axes [2, 1] must be non-empty and sorted{{$}}
func.func @reduce_unsorted(%x: tensor<2x4x3xf32>) {
  %0 = graph.reduce_sum %x {axes = array<i64: 2, 1>} : tensor<2x4x3xf32> -> tensor<2x1x1xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_mean: axes [3] must be distinct and in [0, 3) (normalized){{$}}
// CHECK:      = "graph.reduce_mean"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_mean: axes [3] must be distinct and in [0, 3) (normalized){{$}}
func.func @reduce_range(%x: tensor<2x4x3xf32>) {
  %0 = graph.reduce_mean %x {axes = array<i64: 3>} : tensor<2x4x3xf32> -> tensor<2x4x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_mean: axes [1, 1] must be distinct and in [0, 3) (normalized){{$}}
// CHECK:      = "graph.reduce_mean"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_mean: axes [1, 1] must be distinct and in [0, 3) (normalized){{$}}
func.func @reduce_duplicate(%x: tensor<2x4x3xf32>) {
  %0 = graph.reduce_mean %x {axes = array<i64: 1, 1>} : tensor<2x4x3xf32> -> tensor<2x1x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_max: axes [] must be non-empty and sorted{{$}}
// CHECK:      = "graph.reduce_max"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_max: axes [] must be non-empty and sorted{{$}}
func.func @reduce_empty(%x: tensor<2x4x3xf32>) {
  %0 = graph.reduce_max %x {axes = array<i64>} : tensor<2x4x3xf32> -> tensor<2x4x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_min: result should be tensor<2x1x3xf32> but is declared tensor<2x3xf32>{{$}}
// CHECK:      = "graph.reduce_min"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_min: result should be tensor<2x1x3xf32> but is declared tensor<2x3xf32>{{$}}
func.func @reduce_min_keepdims(%x: tensor<2x4x3xf32>) {
  %0 = graph.reduce_min %x {axes = array<i64: 1>} : tensor<2x4x3xf32> -> tensor<2x3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_prod: input must be a numeric tensor, got tensor<2x4xi1> (cast the booleans first){{$}}
// CHECK:      = "graph.reduce_prod"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_prod: input must be a numeric tensor, got tensor<2x4xi1> (cast the booleans first){{$}}
func.func @reduce_prod_bool(%b: tensor<2x4xi1>) {
  %0 = graph.reduce_prod %b {axes = array<i64: 1>} : tensor<2x4xi1> -> tensor<2x1xi1>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_l1: axes [2] must be distinct and in [0, 2) (normalized){{$}}
// CHECK:      = "graph.reduce_l1"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_l1: axes [2] must be distinct and in [0, 2) (normalized){{$}}
func.func @reduce_l1_range(%x: tensor<2x4xf32>) {
  %0 = graph.reduce_l1 %x {axes = array<i64: 2>} : tensor<2x4xf32> -> tensor<2x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_l2: input must be a float tensor, got tensor<2x4xi64> (cast it to a float type first){{$}}
// CHECK:      = "graph.reduce_l2"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_l2: input must be a float tensor, got tensor<2x4xi64> (cast it to a float type first){{$}}
func.func @reduce_l2_int(%i: tensor<2x4xi64>) {
  %0 = graph.reduce_l2 %i {axes = array<i64: 1>} : tensor<2x4xi64> -> tensor<2x1xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_sum_square: input must be a numeric tensor, got tensor<3xi1> (cast the booleans first){{$}}
// CHECK:      = "graph.reduce_sum_square"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_sum_square: input must be a numeric tensor, got tensor<3xi1> (cast the booleans first){{$}}
func.func @reduce_sum_square_bool(%b: tensor<3xi1>) {
  %0 = graph.reduce_sum_square %b {axes = array<i64: 0>} : tensor<3xi1> -> tensor<1xi1>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_log_sum: axes [1, 0] must be non-empty and sorted{{$}}
// CHECK:      = "graph.reduce_log_sum"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_log_sum: axes [1, 0] must be non-empty and sorted{{$}}
func.func @reduce_log_sum_unsorted(%x: tensor<2x4xf32>) {
  %0 = graph.reduce_log_sum %x {axes = array<i64: 1, 0>} : tensor<2x4xf32> -> tensor<1x1xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.reduce_log_sum_exp: input must be a float tensor, got tensor<2x4xi32> (cast it to a float type first){{$}}
// CHECK:      = "graph.reduce_log_sum_exp"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.reduce_log_sum_exp: input must be a float tensor, got tensor<2x4xi32> (cast it to a float type first){{$}}
func.func @reduce_log_sum_exp_int(%i: tensor<2x4xi32>) {
  %0 = graph.reduce_log_sum_exp %i {axes = array<i64: 1>} : tensor<2x4xi32> -> tensor<2x1xi32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.arg_max: axis 1 of 2x0x3 is empty: there is no index to return{{$}}
// CHECK:      = "graph.arg_max"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.arg_max: axis 1 of 2x0x3 is empty: there is no index to return{{$}}
func.func @arg_max_empty(%x: tensor<2x0x3xf32>) {
  %0 = graph.arg_max %x {axis = 1 : i64} : tensor<2x0x3xf32> -> tensor<2x1x3xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.arg_min: result should be tensor<2x4xi64> but is declared tensor<2x4xf32>{{$}}
// CHECK:      = "graph.arg_min"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.arg_min: result should be tensor<2x4xi64> but is declared tensor<2x4xf32>{{$}}
func.func @arg_min_result_type(%x: tensor<2x4x3xf32>) {
  %0 = graph.arg_min %x {axis = 2 : i64, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<2x4xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.arg_min: axis 3 must be in [0, 3) (normalized){{$}}
// CHECK:      = "graph.arg_min"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.arg_min: axis 3 must be in [0, 3) (normalized){{$}}
func.func @arg_min_axis(%x: tensor<2x4x3xf32>) {
  %0 = graph.arg_min %x {axis = 3 : i64} : tensor<2x4x3xf32> -> tensor<2x4x3xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: mode "area" is not one of nearest, linear, cubic{{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: mode "area" is not one of nearest, linear, cubic{{$}}
func.func @resize_mode(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "area"} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: coordinate_transformation_mode "corners" is not one of half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize{{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: coordinate_transformation_mode "corners" is not one of half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize{{$}}
func.func @resize_coordinate_mode(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, coordinate_transformation_mode = "corners"} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: cannot change the rank (1x1x4x4 to 1x8x8){{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: cannot change the rank (1x1x4x4 to 1x8x8){{$}}
func.func @resize_rank(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<f32: 1.0, 2.0, 2.0>} : tensor<1x1x4x4xf32> to tensor<1x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: scales needs 4 entries, got 2{{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: scales needs 4 entries, got 2{{$}}
func.func @resize_scales(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<f32: 2.0, 2.0>} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: input must be a float tensor, got tensor<1x1x4x4xi64>{{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: input must be a float tensor, got tensor<1x1x4x4xi64>{{$}}
func.func @resize_ints(%x: tensor<1x1x4x4xi64>) {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x1x4x4xi64> to tensor<1x1x8x8xi64>
  func.return
}

// -----

// The custom form takes the type from the value; the generic form can disagree.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.constant: value has type tensor<2xf32> but the result is tensor<3xf32>{{$}}
// CHECK:      = "graph.constant"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.constant: value has type tensor<2xf32> but the result is tensor<3xf32>{{$}}
func.func @constant_type() {
  %0 = "graph.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.constant: element type i4 is not supported{{$}}
// CHECK:      = "graph.constant"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.constant: element type i4 is not supported{{$}}
func.func @constant_element_type() {
  %0 = graph.constant dense<1> : tensor<2xi4>
  func.return
}

// -----

// A weights blob must hold exactly the bytes its tensor type needs.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.constant: weights blob 'short_blob_0' holds 8 bytes but tensor<3xf32> needs 12{{$}}
// CHECK:      = "graph.constant"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.constant: weights blob 'short_blob_0' holds 8 bytes but tensor<3xf32> needs 12{{$}}
func.func @weights_size() {
  %0 = graph.constant #graph.weights<short_blob_0> : tensor<3xf32>
  func.return
}

{-#
  dialect_resources: {
    graph: {
      short_blob_0: "0x080000000000803f00000040"
    }
  }
#-}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: scales must be an array<f32: ...>, got array<i64: 1, 1, 2, 2>{{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: scales must be an array<f32: ...>, got array<i64: 1, 1, 2, 2>{{$}}
func.func @resize_int_scales(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<i64: 1, 1, 2, 2>} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: antialias applies to the linear and cubic modes, not nearest{{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: antialias applies to the linear and cubic modes, not nearest{{$}}
func.func @resize_antialias_nearest(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 0.5, 0.5>, antialias = 1 : i64} : tensor<1x1x4x4xf32> to tensor<1x1x2x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: tf_crop_and_resize needs the roi property (the crop box){{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: tf_crop_and_resize needs the roi property (the crop box){{$}}
func.func @resize_crop_without_roi(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, coordinate_transformation_mode = "tf_crop_and_resize"} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: roi is read by tf_crop_and_resize only; drop it or change the mode{{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: roi is read by tf_crop_and_resize only; drop it or change the mode{{$}}
func.func @resize_roi_without_crop(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, roi = array<f32: 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0>} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.resize: roi must be an array<f32: ...> of 8 entries (starts, then ends), got array<f32: 0.000000e+00, 1.000000e+00>{{$}}
// CHECK:      = "graph.resize"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.resize: roi must be an array<f32: ...> of 8 entries (starts, then ends), got array<f32: 0.000000e+00, 1.000000e+00>{{$}}
func.func @resize_roi_length(%x: tensor<1x1x4x4xf32>) {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, coordinate_transformation_mode = "tf_crop_and_resize", roi = array<f32: 0.0, 1.0>} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.grid_sample: grid must be [2, out_1, out_2, 2] (the input's batch, the output's 2 spatial dims, 2 coordinates) for input 2x3x8x8, got 2x5x6x3{{$}}
// CHECK:      = "graph.grid_sample"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.grid_sample: grid must be [2, out_1, out_2, 2] (the input's batch, the output's 2 spatial dims, 2 coordinates) for input 2x3x8x8, got 2x5x6x3{{$}}
func.func @grid_sample_grid_shape(%x: tensor<2x3x8x8xf32>, %grid: tensor<2x5x6x3xf32>) {
  %0 = graph.grid_sample %x, %grid : (tensor<2x3x8x8xf32>, tensor<2x5x6x3xf32>) -> tensor<2x3x5x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.grid_sample: padding_mode "wrap" is not one of zeros, border, reflection{{$}}
// CHECK:      = "graph.grid_sample"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.grid_sample: padding_mode "wrap" is not one of zeros, border, reflection{{$}}
func.func @grid_sample_padding_mode(%x: tensor<2x3x8x8xf32>, %grid: tensor<2x5x6x2xf32>) {
  %0 = graph.grid_sample %x, %grid {padding_mode = "wrap"} : (tensor<2x3x8x8xf32>, tensor<2x5x6x2xf32>) -> tensor<2x3x5x6xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.grid_sample: input must be a float tensor, got tensor<2x3x8x8xi64> (cast it to a float type first){{$}}
// CHECK:      = "graph.grid_sample"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.grid_sample: input must be a float tensor, got tensor<2x3x8x8xi64> (cast it to a float type first){{$}}
func.func @grid_sample_int_input(%x: tensor<2x3x8x8xi64>, %grid: tensor<2x5x6x2xf32>) {
  %0 = graph.grid_sample %x, %grid : (tensor<2x3x8x8xi64>, tensor<2x5x6x2xf32>) -> tensor<2x3x5x6xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.roi_align: rois must be [R, 4] (x1, y1, x2, y2), got 4x5{{$}}
// CHECK:      = "graph.roi_align"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.roi_align: rois must be [R, 4] (x1, y1, x2, y2), got 4x5{{$}}
func.func @roi_align_rois(%x: tensor<2x3x8x8xf32>, %rois: tensor<4x5xf32>, %batch: tensor<4xi64>) {
  %0 = graph.roi_align %x, %rois, %batch {output_height = 2 : i64, output_width = 2 : i64} : (tensor<2x3x8x8xf32>, tensor<4x5xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.roi_align: batch_indices must have shape 4 (one per roi), got 3{{$}}
// CHECK:      = "graph.roi_align"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.roi_align: batch_indices must have shape 4 (one per roi), got 3{{$}}
func.func @roi_align_batch_indices(%x: tensor<2x3x8x8xf32>, %rois: tensor<4x4xf32>, %batch: tensor<3xi64>) {
  %0 = graph.roi_align %x, %rois, %batch {output_height = 2 : i64, output_width = 2 : i64} : (tensor<2x3x8x8xf32>, tensor<4x4xf32>, tensor<3xi64>) -> tensor<4x3x2x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.roi_align: mode "sum" is not one of avg, max{{$}}
// CHECK:      = "graph.roi_align"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.roi_align: mode "sum" is not one of avg, max{{$}}
func.func @roi_align_mode(%x: tensor<2x3x8x8xf32>, %rois: tensor<4x4xf32>, %batch: tensor<4xi64>) {
  %0 = graph.roi_align %x, %rois, %batch {output_height = 2 : i64, output_width = 2 : i64, mode = "sum"} : (tensor<2x3x8x8xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.col2im: input dim 2 (10) must be the number of sliding blocks, 12 (3x4){{$}}
// CHECK:      = "graph.col2im"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.col2im: input dim 2 (10) must be the number of sliding blocks, 12 (3x4){{$}}
func.func @col2im_block_count(%x: tensor<2x12x10xf32>) {
  %0 = graph.col2im %x {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>} : tensor<2x12x10xf32> -> tensor<2x3x4x5xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.col2im: input dim 1 (10) must be a multiple of the block size 4 (the product of block_shape [2, 2]){{$}}
// CHECK:      = "graph.col2im"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.col2im: input dim 1 (10) must be a multiple of the block size 4 (the product of block_shape [2, 2]){{$}}
func.func @col2im_block_size(%x: tensor<2x10x12xf32>) {
  %0 = graph.col2im %x {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>} : tensor<2x10x12xf32> -> tensor<2x3x4x5xf32>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.col2im: strides has 1 entries but image_shape has 2 dims (expected 2){{$}}
// CHECK:      = "graph.col2im"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.col2im: strides has 1 entries but image_shape has 2 dims (expected 2){{$}}
func.func @col2im_strides(%x: tensor<2x12x12xf32>) {
  %0 = graph.col2im %x {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>, strides = array<i64: 1>} : tensor<2x12x12xf32> -> tensor<2x3x4x5xf32>
  func.return
}
