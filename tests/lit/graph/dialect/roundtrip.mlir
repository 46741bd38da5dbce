// Every graph op in its custom form, printed back exactly: properties in the attribute
// dictionary with default values elided, discardable attributes kept, types as declared.
// The three runs must agree: parse -> print, print -> parse -> print, and generic form in ->
// custom form out (so the generic printer and parser lose nothing either).
//
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s

// CHECK: builtin.module {

// Unary elementwise ops: result type = operand type; default properties are elided.
// CHECK-LABEL: func.func @unary(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<2x3xi64>) {
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>) {
  // CHECK-NEXT: %[[RELU:.*]] = graph.relu %[[X]] : tensor<2x3xf32>
  %relu = graph.relu %x : tensor<2x3xf32>
  // CHECK-NEXT: %[[SIGMOID:.*]] = graph.sigmoid %[[RELU]] : tensor<2x3xf32>
  %sigmoid = graph.sigmoid %relu : tensor<2x3xf32>
  // CHECK-NEXT: %[[TANH:.*]] = graph.tanh %[[SIGMOID]] : tensor<2x3xf32>
  %tanh = graph.tanh %sigmoid : tensor<2x3xf32>
  // CHECK-NEXT: %[[ERF:.*]] = graph.erf %[[TANH]] : tensor<2x3xf32>
  %erf = graph.erf %tanh : tensor<2x3xf32>
  // CHECK-NEXT: %[[EXP:.*]] = graph.exp %[[ERF]] : tensor<2x3xf32>
  %exp = graph.exp %erf : tensor<2x3xf32>
  // CHECK-NEXT: %[[LOG:.*]] = graph.log %[[EXP]] : tensor<2x3xf32>
  %log = graph.log %exp : tensor<2x3xf32>
  // CHECK-NEXT: %[[SQRT:.*]] = graph.sqrt %[[LOG]] : tensor<2x3xf32>
  %sqrt = graph.sqrt %log : tensor<2x3xf32>
  // CHECK-NEXT: %[[RECIP:.*]] = graph.reciprocal %[[SQRT]] : tensor<2x3xf32>
  %recip = graph.reciprocal %sqrt : tensor<2x3xf32>
  // CHECK-NEXT: %[[NEG:.*]] = graph.neg %[[RECIP]] : tensor<2x3xf32>
  %neg = graph.neg %recip : tensor<2x3xf32>
  // CHECK-NEXT: %[[ABS:.*]] = graph.abs %[[NEG]] : tensor<2x3xf32>
  %abs = graph.abs %neg : tensor<2x3xf32>
  // CHECK-NEXT: %[[HSWISH:.*]] = graph.hard_swish %[[ABS]] : tensor<2x3xf32>
  %hswish = graph.hard_swish %abs : tensor<2x3xf32>
  // CHECK-NEXT: %[[GELU:.*]] = graph.gelu %[[HSWISH]] : tensor<2x3xf32>
  %gelu = graph.gelu %hswish : tensor<2x3xf32>
  // CHECK-NEXT: %[[GELUT:.*]] = graph.gelu %[[GELU]] {approximate = "tanh"} : tensor<2x3xf32>
  %gelut = graph.gelu %gelu {approximate = "tanh"} : tensor<2x3xf32>
  // CHECK-NEXT: %[[GELUN:.*]] = graph.gelu %[[GELUT]] : tensor<2x3xf32>
  %gelun = graph.gelu %gelut {approximate = "none"} : tensor<2x3xf32>
  // CHECK-NEXT: %[[LEAKY:.*]] = graph.leaky_relu %[[GELUN]] : tensor<2x3xf32>
  %leaky = graph.leaky_relu %gelun : tensor<2x3xf32>
  // CHECK-NEXT: %[[LEAKYD:.*]] = graph.leaky_relu %[[LEAKY]] : tensor<2x3xf32>
  %leakyd = graph.leaky_relu %leaky {alpha = 0.01 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[LEAKYA:.*]] = graph.leaky_relu %[[LEAKYD]] {alpha = 1.000000e-01 : f32} : tensor<2x3xf32>
  %leakya = graph.leaky_relu %leakyd {alpha = 0.1 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[HSIG:.*]] = graph.hard_sigmoid %[[LEAKYA]] : tensor<2x3xf32>
  %hsig = graph.hard_sigmoid %leakya : tensor<2x3xf32>
  // CHECK-NEXT: %[[HSIGAB:.*]] = graph.hard_sigmoid %[[HSIG]] {alpha = 3.000000e-01 : f32, beta = 4.000000e-01 : f32} : tensor<2x3xf32>
  %hsigab = graph.hard_sigmoid %hsig {alpha = 0.3 : f32, beta = 0.4 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[CLIP:.*]] = graph.clip %[[HSIGAB]] {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<2x3xf32>
  %clip = graph.clip %hsigab {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[CLIPMIN:.*]] = graph.clip %[[CLIP]] {min = 0.000000e+00 : f32} : tensor<2x3xf32>
  %clipmin = graph.clip %clip {min = 0.0 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[CLIPNONE:.*]] = graph.clip %[[CLIPMIN]] : tensor<2x3xf32>
  %clipnone = graph.clip %clipmin : tensor<2x3xf32>
  // CHECK-NEXT: %[[HINT:.*]] = graph.relu %[[CLIPNONE]] {hint = "fused"} : tensor<2x3xf32>
  %hint = graph.relu %clipnone {hint = "fused"} : tensor<2x3xf32>
  // CHECK-NEXT: %[[INEG:.*]] = graph.neg %[[I]] : tensor<2x3xi64>
  %ineg = graph.neg %i : tensor<2x3xi64>
  // CHECK-NEXT: %[[IABS:.*]] = graph.abs %[[INEG]] : tensor<2x3xi64>
  %iabs = graph.abs %ineg : tensor<2x3xi64>
  // CHECK-NEXT: %[[ICLIP:.*]] = graph.clip %[[IABS]] {max = 3.000000e+00 : f32} : tensor<2x3xi64>
  %iclip = graph.clip %iabs {max = 3.0 : f32} : tensor<2x3xi64>
  // CHECK-NEXT: func.return
  func.return
}

// graph.cast: same shape, any supported element type on either side.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<4xi64>) {
func.func @cast(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // CHECK-NEXT: %[[TOINT:.*]] = graph.cast %[[X]] : tensor<2x3xf32> to tensor<2x3xi64>
  %toint = graph.cast %x : tensor<2x3xf32> to tensor<2x3xi64>
  // CHECK-NEXT: %[[TOBOOL:.*]] = graph.cast %[[TOINT]] : tensor<2x3xi64> to tensor<2x3xi1>
  %tobool = graph.cast %toint : tensor<2x3xi64> to tensor<2x3xi1>
  // CHECK-NEXT: %[[TOFLOAT:.*]] = graph.cast %[[TOBOOL]] : tensor<2x3xi1> to tensor<2x3xf32>
  %tofloat = graph.cast %tobool : tensor<2x3xi1> to tensor<2x3xf32>
  // CHECK-NEXT: %[[TOF16:.*]] = graph.cast %[[I]] : tensor<4xi64> to tensor<4xf16>
  %tof16 = graph.cast %i : tensor<4xi64> to tensor<4xf16>
  // CHECK-NEXT: %[[TOU8:.*]] = graph.cast %[[TOF16]] : tensor<4xf16> to tensor<4xui8>
  %tou8 = graph.cast %tof16 : tensor<4xf16> to tensor<4xui8>
  // CHECK-NEXT: %[[TOI32:.*]] = graph.cast %[[TOU8]] : tensor<4xui8> to tensor<4xi32>
  %toi32 = graph.cast %tou8 : tensor<4xui8> to tensor<4xi32>
  // CHECK-NEXT: func.return
  func.return
}

// Binary ops broadcast numpy-style (scalars, prepended dims); comparisons produce i1.
// CHECK-LABEL: func.func @binary(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<4x1x3xf32>, %[[S:.*]]: tensor<f32>, %[[I:.*]]: tensor<2x3xi64>, %[[J:.*]]: tensor<1x3xi64>) {
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1x3xf32>, %s: tensor<f32>, %i: tensor<2x3xi64>, %j: tensor<1x3xi64>) {
  // CHECK-NEXT: %[[ADD:.*]] = graph.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %add = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %[[SUB:.*]] = graph.sub %[[B]], %[[ADD]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sub = graph.sub %b, %add : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %[[MUL:.*]] = graph.mul %[[SUB]], %[[C]] : (tensor<2x3xf32>, tensor<4x1x3xf32>) -> tensor<4x2x3xf32>
  %mul = graph.mul %sub, %c : (tensor<2x3xf32>, tensor<4x1x3xf32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: %[[DIV:.*]] = graph.div %[[MUL]], %[[S]] : (tensor<4x2x3xf32>, tensor<f32>) -> tensor<4x2x3xf32>
  %div = graph.div %mul, %s : (tensor<4x2x3xf32>, tensor<f32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: %[[POW:.*]] = graph.pow %[[DIV]], %[[DIV]] : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %pow = graph.pow %div, %div : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: %[[MAX:.*]] = graph.max %[[POW]], %[[B]] : (tensor<4x2x3xf32>, tensor<3xf32>) -> tensor<4x2x3xf32>
  %max = graph.max %pow, %b : (tensor<4x2x3xf32>, tensor<3xf32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: %[[MIN:.*]] = graph.min %[[S]], %[[MAX]] : (tensor<f32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %min = graph.min %s, %max : (tensor<f32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: %[[IDIV:.*]] = graph.div %[[I]], %[[J]] : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
  %idiv = graph.div %i, %j : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
  // CHECK-NEXT: %[[IMIN:.*]] = graph.min %[[IDIV]], %[[J]] : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
  %imin = graph.min %idiv, %j : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
  // CHECK-NEXT: func.return
  func.return
}

// Comparisons, graph.where and graph.prelu.
// CHECK-LABEL: func.func @select(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f32>, %[[I:.*]]: tensor<2x3xi64>, %[[J:.*]]: tensor<1x3xi64>, %[[SLOPE:.*]]: tensor<3x1x1xf32>, %[[IMG:.*]]: tensor<1x3x4x4xf32>) {
func.func @select(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>, %i: tensor<2x3xi64>, %j: tensor<1x3xi64>, %slope: tensor<3x1x1xf32>, %img: tensor<1x3x4x4xf32>) {
  // CHECK-NEXT: %[[EQ:.*]] = graph.equal %[[I]], %[[J]] : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi1>
  %eq = graph.equal %i, %j : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[LT:.*]] = graph.less %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %lt = graph.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[GT:.*]] = graph.greater %[[S]], %[[A]] : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %gt = graph.greater %s, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[WHERE:.*]] = graph.where %[[LT]], %[[A]], %[[B]] : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %where = graph.where %lt, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %[[IWHERE:.*]] = graph.where %[[EQ]], %[[I]], %[[J]] : (tensor<2x3xi1>, tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
  %iwhere = graph.where %eq, %i, %j : (tensor<2x3xi1>, tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
  // CHECK-NEXT: %[[PRELU:.*]] = graph.prelu %[[IMG]], %[[SLOPE]] : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %prelu = graph.prelu %img, %slope : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-NEXT: func.return
  func.return
}

// The math, activation, logic and bit ops: unary ones keep the operand type, is_nan/is_inf
// and comparisons give i1; default properties are elided, others are printed.
// CHECK-LABEL: func.func @math_and_logic(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[U:.*]]: tensor<2x3xui16>, %[[K:.*]]: tensor<3xui16>, %[[P:.*]]: tensor<2x3xi1>, %[[Q:.*]]: tensor<3xi1>) {
func.func @math_and_logic(%x: tensor<2x3xf32>, %u: tensor<2x3xui16>, %k: tensor<3xui16>, %p: tensor<2x3xi1>, %q: tensor<3xi1>) {
  // CHECK-NEXT: %[[SIN:.*]] = graph.sin %[[X]] : tensor<2x3xf32>
  %sin = graph.sin %x : tensor<2x3xf32>
  // CHECK-NEXT: %[[COS:.*]] = graph.cos %[[SIN]] : tensor<2x3xf32>
  %cos = graph.cos %sin : tensor<2x3xf32>
  // CHECK-NEXT: %[[TAN:.*]] = graph.tan %[[COS]] : tensor<2x3xf32>
  %tan = graph.tan %cos : tensor<2x3xf32>
  // CHECK-NEXT: %[[ASIN:.*]] = graph.asin %[[TAN]] : tensor<2x3xf32>
  %asin = graph.asin %tan : tensor<2x3xf32>
  // CHECK-NEXT: %[[ACOS:.*]] = graph.acos %[[ASIN]] : tensor<2x3xf32>
  %acos = graph.acos %asin : tensor<2x3xf32>
  // CHECK-NEXT: %[[ATAN:.*]] = graph.atan %[[ACOS]] : tensor<2x3xf32>
  %atan = graph.atan %acos : tensor<2x3xf32>
  // CHECK-NEXT: %[[SINH:.*]] = graph.sinh %[[ATAN]] : tensor<2x3xf32>
  %sinh = graph.sinh %atan : tensor<2x3xf32>
  // CHECK-NEXT: %[[COSH:.*]] = graph.cosh %[[SINH]] : tensor<2x3xf32>
  %cosh = graph.cosh %sinh : tensor<2x3xf32>
  // CHECK-NEXT: %[[ASINH:.*]] = graph.asinh %[[COSH]] : tensor<2x3xf32>
  %asinh = graph.asinh %cosh : tensor<2x3xf32>
  // CHECK-NEXT: %[[ACOSH:.*]] = graph.acosh %[[ASINH]] : tensor<2x3xf32>
  %acosh = graph.acosh %asinh : tensor<2x3xf32>
  // CHECK-NEXT: %[[ATANH:.*]] = graph.atanh %[[ACOSH]] : tensor<2x3xf32>
  %atanh = graph.atanh %acosh : tensor<2x3xf32>
  // CHECK-NEXT: %[[CEIL:.*]] = graph.ceil %[[ATANH]] : tensor<2x3xf32>
  %ceil = graph.ceil %atanh : tensor<2x3xf32>
  // CHECK-NEXT: %[[FLOOR:.*]] = graph.floor %[[CEIL]] : tensor<2x3xf32>
  %floor = graph.floor %ceil : tensor<2x3xf32>
  // CHECK-NEXT: %[[ROUND:.*]] = graph.round %[[FLOOR]] : tensor<2x3xf32>
  %round = graph.round %floor : tensor<2x3xf32>
  // CHECK-NEXT: %[[SIGN:.*]] = graph.sign %[[ROUND]] : tensor<2x3xf32>
  %sign = graph.sign %round : tensor<2x3xf32>
  // CHECK-NEXT: %[[SOFTPLUS:.*]] = graph.softplus %[[SIGN]] : tensor<2x3xf32>
  %softplus = graph.softplus %sign : tensor<2x3xf32>
  // CHECK-NEXT: %[[SOFTSIGN:.*]] = graph.softsign %[[SOFTPLUS]] : tensor<2x3xf32>
  %softsign = graph.softsign %softplus : tensor<2x3xf32>
  // CHECK-NEXT: %[[MISH:.*]] = graph.mish %[[SOFTSIGN]] : tensor<2x3xf32>
  %mish = graph.mish %softsign : tensor<2x3xf32>
  // CHECK-NEXT: %[[ELU:.*]] = graph.elu %[[MISH]] {alpha = 5.000000e-01 : f32} : tensor<2x3xf32>
  %elu = graph.elu %mish {alpha = 5.000000e-01 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[SELU:.*]] = graph.selu %[[ELU]] {alpha = 2.000000e+00 : f32, gamma = 3.000000e+00 : f32} : tensor<2x3xf32>
  %selu = graph.selu %elu {alpha = 2.000000e+00 : f32, gamma = 3.000000e+00 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[CELU:.*]] = graph.celu %[[SELU]] : tensor<2x3xf32>
  %celu = graph.celu %selu : tensor<2x3xf32>
  // CHECK-NEXT: %[[THRESHOLDED_RELU:.*]] = graph.thresholded_relu %[[CELU]] {alpha = 2.500000e-01 : f32} : tensor<2x3xf32>
  %thresholded_relu = graph.thresholded_relu %celu {alpha = 2.500000e-01 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[SHRINK:.*]] = graph.shrink %[[THRESHOLDED_RELU]] {bias = 1.000000e+00 : f32, lambd = 2.000000e+00 : f32} : tensor<2x3xf32>
  %shrink = graph.shrink %thresholded_relu {bias = 1.000000e+00 : f32, lambd = 2.000000e+00 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %[[ISNAN:.*]] = graph.is_nan %[[SHRINK]] : tensor<2x3xf32> -> tensor<2x3xi1>
  %isnan = graph.is_nan %shrink : tensor<2x3xf32> -> tensor<2x3xi1>
  // CHECK-NEXT: %[[ISINF:.*]] = graph.is_inf %[[X]] {detect_negative = 0 : i64} : tensor<2x3xf32> -> tensor<2x3xi1>
  %isinf = graph.is_inf %x {detect_negative = 0 : i64} : tensor<2x3xf32> -> tensor<2x3xi1>
  // CHECK-NEXT: %[[NOT:.*]] = graph.not %[[ISINF]] : tensor<2x3xi1>
  %not = graph.not %isinf : tensor<2x3xi1>
  // CHECK-NEXT: %[[AND:.*]] = graph.and %[[NOT]], %[[Q]] : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %and = graph.and %not, %q : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[OR:.*]] = graph.or %[[AND]], %[[P]] : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %or = graph.or %and, %p : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[XOR:.*]] = graph.xor %[[OR]], %[[ISNAN]] : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %xor = graph.xor %or, %isnan : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[GE:.*]] = graph.greater_equal %[[U]], %[[K]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xi1>
  %ge = graph.greater_equal %u, %k : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[LE:.*]] = graph.less_equal %[[X]], %[[SIN]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %le = graph.less_equal %x, %sin : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %[[BNOT:.*]] = graph.bitwise_not %[[U]] : tensor<2x3xui16>
  %bnot = graph.bitwise_not %u : tensor<2x3xui16>
  // CHECK-NEXT: %[[BAND:.*]] = graph.bitwise_and %[[BNOT]], %[[K]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %band = graph.bitwise_and %bnot, %k : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  // CHECK-NEXT: %[[BOR:.*]] = graph.bitwise_or %[[BAND]], %[[U]] : (tensor<2x3xui16>, tensor<2x3xui16>) -> tensor<2x3xui16>
  %bor = graph.bitwise_or %band, %u : (tensor<2x3xui16>, tensor<2x3xui16>) -> tensor<2x3xui16>
  // CHECK-NEXT: %[[BXOR:.*]] = graph.bitwise_xor %[[BOR]], %[[K]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %bxor = graph.bitwise_xor %bor, %k : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  // CHECK-NEXT: %[[SHL:.*]] = graph.bit_shift %[[BXOR]], %[[K]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %shl = graph.bit_shift %bxor, %k : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  // CHECK-NEXT: %[[SHR:.*]] = graph.bit_shift %[[SHL]], %[[K]] {direction = "right"} : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %shr = graph.bit_shift %shl, %k {direction = "right"} : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  // CHECK-NEXT: %[[MOD:.*]] = graph.mod %[[SHR]], %[[K]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %mod = graph.mod %shr, %k : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  // CHECK-NEXT: %[[FMOD:.*]] = graph.mod %[[X]], %[[SIN]] {fmod = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %fmod = graph.mod %x, %sin {fmod = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %[[IPOW:.*]] = graph.pow %[[X]], %[[U]] : (tensor<2x3xf32>, tensor<2x3xui16>) -> tensor<2x3xf32>
  %ipow = graph.pow %x, %u : (tensor<2x3xf32>, tensor<2x3xui16>) -> tensor<2x3xf32>
  // CHECK-NEXT: func.return
  func.return
}

// graph.matmul (numpy rules, 1-D operands) and graph.gemm (optional bias, transposes).
// CHECK-LABEL: func.func @contractions(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>, %[[BT:.*]]: tensor<4x3xf32>, %[[V:.*]]: tensor<3xf32>, %[[BATCH:.*]]: tensor<5x1x2x3xf32>, %[[BB:.*]]: tensor<7x3x4xf32>, %[[BIAS:.*]]: tensor<4xf32>) {
func.func @contractions(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %bt: tensor<4x3xf32>, %v: tensor<3xf32>, %batch: tensor<5x1x2x3xf32>, %bb: tensor<7x3x4xf32>, %bias: tensor<4xf32>) {
  // CHECK-NEXT: %[[MM:.*]] = graph.matmul %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %mm = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %[[BMM:.*]] = graph.matmul %[[BATCH]], %[[BB]] : (tensor<5x1x2x3xf32>, tensor<7x3x4xf32>) -> tensor<5x7x2x4xf32>
  %bmm = graph.matmul %batch, %bb : (tensor<5x1x2x3xf32>, tensor<7x3x4xf32>) -> tensor<5x7x2x4xf32>
  // CHECK-NEXT: %[[VM:.*]] = graph.matmul %[[V]], %[[B]] : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %vm = graph.matmul %v, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %[[MV:.*]] = graph.matmul %[[A]], %[[V]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %mv = graph.matmul %a, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  // CHECK-NEXT: %[[GEMM:.*]] = graph.gemm %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %gemm = graph.gemm %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %[[GEMMB:.*]] = graph.gemm %[[A]], %[[BT]], %[[BIAS]] {trans_b = 1 : i64, alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %gemmb = graph.gemm %a, %bt, %bias {trans_b = 1 : i64, alpha = 0.5 : f32, beta = 2.0 : f32} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %[[GEMMT:.*]] = graph.gemm %[[B]], %[[B]] {trans_a = 1 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  %gemmt = graph.gemm %b, %b {trans_a = 1 : i64, trans_b = 0 : i64, alpha = 1.0 : f32} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  // CHECK-NEXT: func.return
  func.return
}

// graph.conv: optional bias, 1-3 spatial dims, groups; graph.conv_transpose.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x32x32xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[B:.*]]: tensor<8xf32>, %[[DW:.*]]: tensor<8x1x3x3xf32>, %[[X1:.*]]: tensor<1x4x10xf32>, %[[W1:.*]]: tensor<6x2x3xf32>, %[[X3:.*]]: tensor<1x2x4x4x4xf32>, %[[W3:.*]]: tensor<4x2x2x2x2xf32>, %[[WT:.*]]: tensor<8x4x3x3xf32>, %[[BT:.*]]: tensor<4xf32>) {
func.func @conv(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>, %dw: tensor<8x1x3x3xf32>, %x1: tensor<1x4x10xf32>, %w1: tensor<6x2x3xf32>, %x3: tensor<1x2x4x4x4xf32>, %w3: tensor<4x2x2x2x2xf32>, %wt: tensor<8x4x3x3xf32>, %bt: tensor<4xf32>) {
  // CHECK-NEXT: %[[CONV:.*]] = graph.conv %[[X]], %[[W]] : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x30x30xf32>
  %conv = graph.conv %x, %w : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x30x30xf32>
  // CHECK-NEXT: %[[CONVB:.*]] = graph.conv %[[X]], %[[W]], %[[B]] {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %convb = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  // CHECK-NEXT: %[[DWCONV:.*]] = graph.conv %[[CONVB]], %[[DW]] {pads = array<i64: 1, 1, 1, 1>, group = 8 : i64} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x16x16xf32>
  %dwconv = graph.conv %convb, %dw {pads = array<i64: 1, 1, 1, 1>, group = 8 : i64} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x16x16xf32>
  // CHECK-NEXT: %[[CONV1D:.*]] = graph.conv %[[X1]], %[[W1]] {group = 2 : i64, dilations = array<i64: 2>, pads = array<i64: 0, 1>} : (tensor<1x4x10xf32>, tensor<6x2x3xf32>) -> tensor<1x6x7xf32>
  %conv1d = graph.conv %x1, %w1 {group = 2 : i64, dilations = array<i64: 2>, pads = array<i64: 0, 1>} : (tensor<1x4x10xf32>, tensor<6x2x3xf32>) -> tensor<1x6x7xf32>
  // CHECK-NEXT: %[[CONV3D:.*]] = graph.conv %[[X3]], %[[W3]] {strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>, tensor<4x2x2x2x2xf32>) -> tensor<1x4x2x2x2xf32>
  %conv3d = graph.conv %x3, %w3 {strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>, tensor<4x2x2x2x2xf32>) -> tensor<1x4x2x2x2xf32>
  // CHECK-NEXT: %[[DECONV:.*]] = graph.conv_transpose %[[DWCONV]], %[[WT]] : (tensor<1x8x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x18x18xf32>
  %deconv = graph.conv_transpose %dwconv, %wt : (tensor<1x8x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x18x18xf32>
  // CHECK-NEXT: %[[DECONVB:.*]] = graph.conv_transpose %[[DWCONV]], %[[WT]], %[[BT]] {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x32x32xf32>
  %deconvb = graph.conv_transpose %dwconv, %wt, %bt {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x32x32xf32>
  // CHECK-NEXT: func.return
  func.return
}

// Normalizations and softmax; graph.layer_norm has three results.
// CHECK-LABEL: func.func @norm(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x4x4xf32>, %[[C:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<2x8x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[GG:.*]]: tensor<8x16xf32>) {
func.func @norm(%x: tensor<1x3x4x4xf32>, %c: tensor<3xf32>, %s: tensor<2x8x16xf32>, %g: tensor<16xf32>, %gg: tensor<8x16xf32>) {
  // CHECK-NEXT: %[[BN:.*]] = graph.batch_norm %[[X]], %[[C]], %[[C]], %[[C]], %[[C]] : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %bn = graph.batch_norm %x, %c, %c, %c, %c : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-NEXT: %[[BNE:.*]] = graph.batch_norm %[[BN]], %[[C]], %[[C]], %[[C]], %[[C]] {epsilon = 1.000000e-03 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %bne = graph.batch_norm %bn, %c, %c, %c, %c {epsilon = 1.0e-03 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-NEXT: %[[LN:.*]], %[[MEAN:.*]], %[[INV:.*]] = graph.layer_norm %[[S]], %[[G]], %[[G]] {axis = 2 : i64} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>)
  %ln, %mean, %inv = graph.layer_norm %s, %g, %g {axis = 2 : i64} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>)
  // CHECK-NEXT: %[[LNB:.*]], %[[MEANB:.*]], %[[INVB:.*]] = graph.layer_norm %[[LN]], %[[GG]] {axis = 1 : i64, epsilon = 1.000000e-06 : f32} : (tensor<2x8x16xf32>, tensor<8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  %lnb, %meanb, %invb = graph.layer_norm %ln, %gg {axis = 1 : i64, epsilon = 1.0e-06 : f32} : (tensor<2x8x16xf32>, tensor<8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  // CHECK-NEXT: %[[LRN:.*]] = graph.lrn %[[BNE]] {size = 5 : i64} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  %lrn = graph.lrn %bne {size = 5 : i64} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  // CHECK-NEXT: %[[LRNP:.*]] = graph.lrn %[[LRN]] {size = 3 : i64, alpha = 2.000000e-04 : f32, beta = 5.000000e-01 : f32, bias = 2.000000e+00 : f32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  %lrnp = graph.lrn %lrn {size = 3 : i64, alpha = 2.0e-04 : f32, beta = 0.5 : f32, bias = 2.0 : f32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  // CHECK-NEXT: %[[SM:.*]] = graph.softmax %[[LNB]] {axis = 2 : i64} : tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  %sm = graph.softmax %lnb {axis = 2 : i64} : tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  // CHECK-NEXT: %[[LSM:.*]] = graph.log_softmax %[[SM]] {axis = 0 : i64} : tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  %lsm = graph.log_softmax %sm {axis = 0 : i64} : tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  // CHECK-NEXT: func.return
  func.return
}

// Windowed and global pooling.
// CHECK-LABEL: func.func @pool(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x8x8xf32>, %[[X1:.*]]: tensor<1x4x9xf32>) {
func.func @pool(%x: tensor<1x4x8x8xf32>, %x1: tensor<1x4x9xf32>) {
  // CHECK-NEXT: %[[MP:.*]] = graph.max_pool %[[X]] {kernel_shape = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x7x7xf32>
  %mp = graph.max_pool %x {kernel_shape = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x7x7xf32>
  // CHECK-NEXT: %[[MPP:.*]] = graph.max_pool %[[X]] {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %mpp = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = 0 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: %[[MPC:.*]] = graph.max_pool %[[X1]] {kernel_shape = array<i64: 2>, strides = array<i64: 2>, ceil_mode = 1 : i64} : tensor<1x4x9xf32> -> tensor<1x4x5xf32>
  %mpc = graph.max_pool %x1 {kernel_shape = array<i64: 2>, strides = array<i64: 2>, ceil_mode = 1 : i64} : tensor<1x4x9xf32> -> tensor<1x4x5xf32>
  // CHECK-NEXT: %[[AP:.*]] = graph.avg_pool %[[X]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %ap = graph.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: %[[APP:.*]] = graph.avg_pool %[[X]] {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %app = graph.avg_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  // CHECK-NEXT: %[[GAP:.*]] = graph.global_avg_pool %[[X]] : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  %gap = graph.global_avg_pool %x : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  // CHECK-NEXT: %[[GMP:.*]] = graph.global_max_pool %[[X1]] : tensor<1x4x9xf32> -> tensor<1x4x1xf32>
  %gmp = graph.global_max_pool %x1 : tensor<1x4x9xf32> -> tensor<1x4x1xf32>
  // CHECK-NEXT: func.return
  func.return
}

// Integer forms: matmul and conv of integer operands accumulate in i32 (each operand
// widened), max pooling of integers, the max pool's indices and their inverse, bitcasts,
// and wrap padding.
// CHECK-LABEL: func.func @integer_ops(
// CHECK-SAME:    %[[A:.*]]: tensor<2x3xui8>, %[[B:.*]]: tensor<3x4xi8>, %[[X:.*]]: tensor<1x3x8x8xi16>, %[[W:.*]]: tensor<4x3x3x3xi8>, %[[BIAS:.*]]: tensor<4xi32>, %[[F:.*]]: tensor<1x4x8x8xf32>, %[[Q:.*]]: tensor<1x4x8x8xui8>) {
func.func @integer_ops(%a: tensor<2x3xui8>, %b: tensor<3x4xi8>, %x: tensor<1x3x8x8xi16>, %w: tensor<4x3x3x3xi8>, %bias: tensor<4xi32>, %f: tensor<1x4x8x8xf32>, %q: tensor<1x4x8x8xui8>) {
  // CHECK-NEXT: %{{.*}} = graph.matmul %[[A]], %[[B]] : (tensor<2x3xui8>, tensor<3x4xi8>) -> tensor<2x4xi32>
  %mm = graph.matmul %a, %b : (tensor<2x3xui8>, tensor<3x4xi8>) -> tensor<2x4xi32>
  // CHECK-NEXT: %{{.*}} = graph.conv %[[X]], %[[W]], %[[BIAS]] {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xi16>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x4x8x8xi32>
  %conv = graph.conv %x, %w, %bias {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xi16>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x4x8x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.max_pool %[[Q]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xui8> -> tensor<1x4x4x4xui8>
  %mp = graph.max_pool %q {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xui8> -> tensor<1x4x4x4xui8>
  // CHECK-NEXT: %[[MPF:.*]] = graph.max_pool %[[F]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %mpf = graph.max_pool %f {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: %{{.*}} = graph.max_pool_indices %[[F]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 1 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xi64>
  %idx = graph.max_pool_indices %f {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 1 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xi64>
  // CHECK-NEXT: %[[IDX:.*]] = graph.max_pool_indices %[[F]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xi64>
  %idx0 = graph.max_pool_indices %f {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 0 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xi64>
  // CHECK-NEXT: %{{.*}} = graph.max_unpool %[[MPF]], %[[IDX]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>) -> tensor<1x4x8x8xf32>
  %up = graph.max_unpool %mpf, %idx0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>) -> tensor<1x4x8x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.max_unpool %[[MPF]], %[[IDX]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, output = array<i64: 9, 10>} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>) -> tensor<1x4x9x10xf32>
  %upo = graph.max_unpool %mpf, %idx0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, output = array<i64: 9, 10>} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>) -> tensor<1x4x9x10xf32>
  // CHECK-NEXT: %[[BITS:.*]] = graph.bitcast %[[F]] : tensor<1x4x8x8xf32> to tensor<1x4x8x8xi32>
  %bits = graph.bitcast %f : tensor<1x4x8x8xf32> to tensor<1x4x8x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.bitcast %[[BITS]] : tensor<1x4x8x8xi32> to tensor<1x4x8x8xf32>
  %back = graph.bitcast %bits : tensor<1x4x8x8xi32> to tensor<1x4x8x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.pad %[[F]] {pads = array<i64: 0, 0, 9, 1, 0, 0, 0, 2>, mode = "wrap"} : tensor<1x4x8x8xf32> -> tensor<1x4x17x11xf32>
  %wrap = graph.pad %f {pads = array<i64: 0, 0, 9, 1, 0, 0, 0, 2>, mode = "wrap"} : tensor<1x4x8x8xf32> -> tensor<1x4x17x11xf32>
  // CHECK-NEXT: func.return
  func.return
}

// Ops whose result shape is stated by the result type: reshape, expand, resize.
// CHECK-LABEL: func.func @declared_shape(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<3x1xf32>, %[[IMG:.*]]: tensor<1x1x4x4xf32>) {
func.func @declared_shape(%x: tensor<2x3xf32>, %c: tensor<3x1xf32>, %img: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: %[[RS:.*]] = graph.reshape %[[X]] : tensor<2x3xf32> to tensor<3x2xf32>
  %rs = graph.reshape %x : tensor<2x3xf32> to tensor<3x2xf32>
  // CHECK-NEXT: %[[FLAT:.*]] = graph.reshape %[[RS]] : tensor<3x2xf32> to tensor<6xf32>
  %flat = graph.reshape %rs : tensor<3x2xf32> to tensor<6xf32>
  // CHECK-NEXT: %[[EX:.*]] = graph.expand %[[C]] : tensor<3x1xf32> to tensor<2x3x4xf32>
  %ex = graph.expand %c : tensor<3x1xf32> to tensor<2x3x4xf32>
  // CHECK-NEXT: %[[RZ:.*]] = graph.resize %[[IMG]] {scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  %rz = graph.resize %img {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  // CHECK-NEXT: %[[RZL:.*]] = graph.resize %[[IMG]] {scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>, mode = "linear", coordinate_transformation_mode = "align_corners", nearest_mode = "floor", cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = 1 : i64, extrapolation_value = 1.000000e+00 : f32} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  %rzl = graph.resize %img {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "linear", coordinate_transformation_mode = "align_corners", nearest_mode = "floor", cubic_coeff_a = -0.5 : f32, exclude_outside = 1 : i64, extrapolation_value = 1.0 : f32} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  // CHECK-NEXT: %[[RZD:.*]] = graph.resize %[[IMG]] {scales = array<f32: 1.000000e+00, 1.000000e+00, 5.000000e-01, 5.000000e-01>} : tensor<1x1x4x4xf32> to tensor<1x1x2x2xf32>
  %rzd = graph.resize %img {scales = array<f32: 1.0, 1.0, 0.5, 0.5>, mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor", cubic_coeff_a = -0.75 : f32, exclude_outside = 0 : i64, extrapolation_value = 0.0 : f32} : tensor<1x1x4x4xf32> to tensor<1x1x2x2xf32>
  // CHECK-NEXT: func.return
  func.return
}

// Sampling ops: resize's cubic, antialias and crop properties, grid_sample, roi_align, col2im.
// CHECK-LABEL: func.func @sampling(
// CHECK-SAME:    %[[IMG:.*]]: tensor<1x1x4x4xf32>, %[[X:.*]]: tensor<2x3x8x8xf32>, %[[GRID:.*]]: tensor<2x5x6x2xf32>, %[[VOL:.*]]: tensor<1x2x3x4x5xf32>, %[[VGRID:.*]]: tensor<1x2x2x2x3xf32>, %[[ROIS:.*]]: tensor<4x4xf32>, %[[BATCH:.*]]: tensor<4xi64>, %[[COLS:.*]]: tensor<2x12x12xf32>) {
func.func @sampling(%img: tensor<1x1x4x4xf32>, %x: tensor<2x3x8x8xf32>, %grid: tensor<2x5x6x2xf32>, %vol: tensor<1x2x3x4x5xf32>, %vgrid: tensor<1x2x2x2x3xf32>, %rois: tensor<4x4xf32>, %batch: tensor<4xi64>, %cols: tensor<2x12x12xf32>) {
  // CHECK-NEXT: %{{.*}} = graph.resize %[[IMG]] {scales = array<f32: 1.000000e+00, 1.000000e+00, 5.000000e-01, 7.500000e-01>, mode = "cubic", exclude_outside = 1 : i64, antialias = 1 : i64} : tensor<1x1x4x4xf32> to tensor<1x1x2x3xf32>
  %rzc = graph.resize %img {scales = array<f32: 1.0, 1.0, 0.5, 0.75>, mode = "cubic", exclude_outside = 1 : i64, antialias = 1 : i64} : tensor<1x1x4x4xf32> to tensor<1x1x2x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.resize %[[IMG]] {scales = array<f32: 1.000000e+00, 1.000000e+00, 1.500000e+00, 1.500000e+00>, mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.000000e+00 : f32, roi = array<f32: 0.000000e+00, 0.000000e+00, 2.000000e-01, 1.000000e-01, 1.000000e+00, 1.000000e+00, 8.000000e-01, 9.000000e-01>} : tensor<1x1x4x4xf32> to tensor<1x1x6x6xf32>
  %rzt = graph.resize %img {scales = array<f32: 1.0, 1.0, 1.5, 1.5>, mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.0 : f32, roi = array<f32: 0.0, 0.0, 0.2, 0.1, 1.0, 1.0, 0.8, 0.9>} : tensor<1x1x4x4xf32> to tensor<1x1x6x6xf32>
  // CHECK-NEXT: %{{.*}} = graph.grid_sample %[[X]], %[[GRID]] : (tensor<2x3x8x8xf32>, tensor<2x5x6x2xf32>) -> tensor<2x3x5x6xf32>
  %gs = graph.grid_sample %x, %grid {mode = "linear", padding_mode = "zeros", align_corners = 0 : i64} : (tensor<2x3x8x8xf32>, tensor<2x5x6x2xf32>) -> tensor<2x3x5x6xf32>
  // CHECK-NEXT: %{{.*}} = graph.grid_sample %[[X]], %[[GRID]] {mode = "cubic", padding_mode = "reflection", align_corners = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<2x5x6x2xf32>) -> tensor<2x3x5x6xf32>
  %gsc = graph.grid_sample %x, %grid {mode = "cubic", padding_mode = "reflection", align_corners = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<2x5x6x2xf32>) -> tensor<2x3x5x6xf32>
  // CHECK-NEXT: %{{.*}} = graph.grid_sample %[[VOL]], %[[VGRID]] {mode = "nearest", padding_mode = "border"} : (tensor<1x2x3x4x5xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  %gsv = graph.grid_sample %vol, %vgrid {mode = "nearest", padding_mode = "border"} : (tensor<1x2x3x4x5xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x2xf32>
  // CHECK-NEXT: %{{.*}} = graph.roi_align %[[X]], %[[ROIS]], %[[BATCH]] {output_height = 2 : i64, output_width = 3 : i64} : (tensor<2x3x8x8xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x3xf32>
  %ra = graph.roi_align %x, %rois, %batch {output_height = 2 : i64, output_width = 3 : i64, mode = "avg", sampling_ratio = 0 : i64} : (tensor<2x3x8x8xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.roi_align %[[X]], %[[ROIS]], %[[BATCH]] {output_height = 2 : i64, output_width = 2 : i64, mode = "max", sampling_ratio = 2 : i64, spatial_scale = 2.500000e-01 : f32, coordinate_transformation_mode = "output_half_pixel"} : (tensor<2x3x8x8xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
  %rm = graph.roi_align %x, %rois, %batch {output_height = 2 : i64, output_width = 2 : i64, mode = "max", sampling_ratio = 2 : i64, spatial_scale = 0.25 : f32, coordinate_transformation_mode = "output_half_pixel"} : (tensor<2x3x8x8xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
  // CHECK-NEXT: %{{.*}} = graph.col2im %[[COLS]] {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>} : tensor<2x12x12xf32> -> tensor<2x3x4x5xf32>
  %ci = graph.col2im %cols {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>} : tensor<2x12x12xf32> -> tensor<2x3x4x5xf32>
  // CHECK-NEXT: %{{.*}} = graph.col2im %[[COLS]] {image_shape = array<i64: 6, 7>, block_shape = array<i64: 2, 2>, strides = array<i64: 2, 3>, pads = array<i64: 1, 0, 1, 3>, dilations = array<i64: 1, 2>} : tensor<2x12x12xf32> -> tensor<2x3x6x7xf32>
  %cs = graph.col2im %cols {image_shape = array<i64: 6, 7>, block_shape = array<i64: 2, 2>, strides = array<i64: 2, 3>, pads = array<i64: 1, 0, 1, 3>, dilations = array<i64: 1, 2>} : tensor<2x12x12xf32> -> tensor<2x3x6x7xf32>
  // CHECK-NEXT: func.return
  func.return
}

// Data movement: transpose, concat, split, slice, gather, pad, tile.
// CHECK-LABEL: func.func @data_movement(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x5xf32>, %[[Z:.*]]: tensor<10x6xf32>, %[[I:.*]]: tensor<2x2xi64>, %[[K:.*]]: tensor<4xi32>) {
func.func @data_movement(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>, %z: tensor<10x6xf32>, %i: tensor<2x2xi64>, %k: tensor<4xi32>) {
  // CHECK-NEXT: %[[TR:.*]] = graph.transpose %[[X]] {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %tr = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK-NEXT: %[[CAT:.*]] = graph.concat %[[X]], %[[Y]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %cat = graph.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK-NEXT: %[[ONE:.*]] = graph.concat %[[X]] {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %one = graph.concat %x {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %[[LO:.*]], %[[HI:.*]] = graph.split %[[CAT]] {axis = 1 : i64, sizes = array<i64: 3, 5>} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x5xf32>
  %lo, %hi = graph.split %cat {axis = 1 : i64, sizes = array<i64: 3, 5>} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x5xf32>
  // CHECK-NEXT: %[[WHOLE:.*]] = graph.split %[[X]] {axis = 0 : i64, sizes = array<i64: 2>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %whole = graph.split %x {axis = 0 : i64, sizes = array<i64: 2>} : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK-NEXT: %[[SL:.*]] = graph.slice %[[Z]] {starts = array<i64: 1, 0>, ends = array<i64: 9, 6>, steps = array<i64: 2, 1>} : tensor<10x6xf32> -> tensor<4x6xf32>
  %sl = graph.slice %z {starts = array<i64: 1, 0>, ends = array<i64: 9, 6>, steps = array<i64: 2, 1>} : tensor<10x6xf32> -> tensor<4x6xf32>
  // CHECK-NEXT: %[[REV:.*]] = graph.slice %[[Z]] {starts = array<i64: 9, 5>, ends = array<i64: -1, 0>, steps = array<i64: -2, -1>} : tensor<10x6xf32> -> tensor<5x5xf32>
  %rev = graph.slice %z {starts = array<i64: 9, 5>, ends = array<i64: -1, 0>, steps = array<i64: -2, -1>} : tensor<10x6xf32> -> tensor<5x5xf32>
  // CHECK-NEXT: %[[GA:.*]] = graph.gather %[[Z]], %[[I]] {axis = 0 : i64} : (tensor<10x6xf32>, tensor<2x2xi64>) -> tensor<2x2x6xf32>
  %ga = graph.gather %z, %i {axis = 0 : i64} : (tensor<10x6xf32>, tensor<2x2xi64>) -> tensor<2x2x6xf32>
  // CHECK-NEXT: %[[GB:.*]] = graph.gather %[[Z]], %[[K]] {axis = 1 : i64} : (tensor<10x6xf32>, tensor<4xi32>) -> tensor<10x4xf32>
  %gb = graph.gather %z, %k {axis = 1 : i64} : (tensor<10x6xf32>, tensor<4xi32>) -> tensor<10x4xf32>
  // CHECK-NEXT: %[[PAD:.*]] = graph.pad %[[X]] {pads = array<i64: 1, 0, 1, 2>} : tensor<2x3xf32> -> tensor<4x5xf32>
  %pad = graph.pad %x {pads = array<i64: 1, 0, 1, 2>} : tensor<2x3xf32> -> tensor<4x5xf32>
  // CHECK-NEXT: %[[PADR:.*]] = graph.pad %[[X]] {pads = array<i64: 0, 1, 0, 1>, mode = "reflect"} : tensor<2x3xf32> -> tensor<2x5xf32>
  %padr = graph.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "reflect"} : tensor<2x3xf32> -> tensor<2x5xf32>
  // CHECK-NEXT: %[[PADC:.*]] = graph.pad %[[X]] {pads = array<i64: 1, 1, 1, 1>, value = 2.500000e+00 : f32} : tensor<2x3xf32> -> tensor<4x5xf32>
  %padc = graph.pad %x {pads = array<i64: 1, 1, 1, 1>, mode = "constant", value = 2.5 : f32} : tensor<2x3xf32> -> tensor<4x5xf32>
  // CHECK-NEXT: %[[PADE:.*]] = graph.pad %[[I]] {pads = array<i64: 0, 0, 3, 3>, mode = "edge"} : tensor<2x2xi64> -> tensor<5x5xi64>
  %pade = graph.pad %i {pads = array<i64: 0, 0, 3, 3>, mode = "edge"} : tensor<2x2xi64> -> tensor<5x5xi64>
  // CHECK-NEXT: %[[TILE:.*]] = graph.tile %[[X]] {repeats = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<4x9xf32>
  %tile = graph.tile %x {repeats = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<4x9xf32>
  // CHECK-NEXT: func.return
  func.return
}

// Element gathers and scatters, running sums and products, sequence reversal: reduction
// "none", batch_dims 0, exclusive 0 and reverse 0 are defaults (elided).
// CHECK-LABEL: func.func @index_ops(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4xf32>, %[[I:.*]]: tensor<2x4xi64>, %[[U:.*]]: tensor<2x4xf32>, %[[T:.*]]: tensor<2x1xi32>, %[[N:.*]]: tensor<4xi64>) {
func.func @index_ops(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>, %t: tensor<2x1xi32>, %n: tensor<4xi64>) {
  // CHECK-NEXT: %[[GE:.*]] = graph.gather_elements %[[X]], %[[I]] {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  %ge = graph.gather_elements %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  // CHECK-NEXT: %[[GN:.*]] = graph.gather_nd %[[X]], %[[T]] : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  %gn = graph.gather_nd %x, %t {batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %[[GB:.*]] = graph.gather_nd %[[I]], %[[T]] {batch_dims = 1 : i64} : (tensor<2x4xi64>, tensor<2x1xi32>) -> tensor<2xi64>
  %gb = graph.gather_nd %i, %t {batch_dims = 1 : i64} : (tensor<2x4xi64>, tensor<2x1xi32>) -> tensor<2xi64>
  // CHECK-NEXT: %[[SE:.*]] = graph.scatter_elements %[[X]], %[[I]], %[[U]] {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %se = graph.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: %[[SM:.*]] = graph.scatter_elements %[[X]], %[[I]], %[[U]] {axis = 0 : i64, reduction = "mul"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %sm = graph.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "mul"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: %[[SN:.*]] = graph.scatter_nd %[[X]], %[[T]], %[[U]] {reduction = "max"} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %sn = graph.scatter_nd %x, %t, %u {reduction = "max"} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  // CHECK-NEXT: %[[CS:.*]] = graph.cum_sum %[[X]] {axis = 1 : i64} : tensor<3x4xf32> -> tensor<3x4xf32>
  %cs = graph.cum_sum %x {axis = 1 : i64, exclusive = 0 : i64, reverse = 0 : i64} : tensor<3x4xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: %[[CP:.*]] = graph.cum_prod %[[I]] {axis = 0 : i64, exclusive = 1 : i64, reverse = 1 : i64} : tensor<2x4xi64> -> tensor<2x4xi64>
  %cp = graph.cum_prod %i {axis = 0 : i64, exclusive = 1 : i64, reverse = 1 : i64} : tensor<2x4xi64> -> tensor<2x4xi64>
  // CHECK-NEXT: %[[RS:.*]] = graph.reverse_sequence %[[X]], %[[N]] {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  %rs = graph.reverse_sequence %x, %n {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  // CHECK-NEXT: func.return
  func.return
}

// Reductions: keepdims defaults to 1 (elided); all axes with keepdims 0 gives a scalar.
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x3xf32>, %[[I:.*]]: tensor<2x4x3xi64>) {
func.func @reductions(%x: tensor<2x4x3xf32>, %i: tensor<2x4x3xi64>) {
  // CHECK-NEXT: %[[SUM:.*]] = graph.reduce_sum %[[X]] {axes = array<i64: 1>} : tensor<2x4x3xf32> -> tensor<2x1x3xf32>
  %sum = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<2x4x3xf32> -> tensor<2x1x3xf32>
  // CHECK-NEXT: %[[ISUM:.*]] = graph.reduce_sum %[[I]] {axes = array<i64: 0, 2>, keepdims = 0 : i64} : tensor<2x4x3xi64> -> tensor<4xi64>
  %isum = graph.reduce_sum %i {axes = array<i64: 0, 2>, keepdims = 0 : i64} : tensor<2x4x3xi64> -> tensor<4xi64>
  // CHECK-NEXT: %[[MEAN:.*]] = graph.reduce_mean %[[X]] {axes = array<i64: 1, 2>} : tensor<2x4x3xf32> -> tensor<2x1x1xf32>
  %mean = graph.reduce_mean %x {axes = array<i64: 1, 2>, keepdims = 1 : i64} : tensor<2x4x3xf32> -> tensor<2x1x1xf32>
  // CHECK-NEXT: %[[ALL:.*]] = graph.reduce_mean %[[X]] {axes = array<i64: 0, 1, 2>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<f32>
  %all = graph.reduce_mean %x {axes = array<i64: 0, 1, 2>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<f32>
  // CHECK-NEXT: %[[MAX:.*]] = graph.reduce_max %[[X]] {axes = array<i64: 2>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<2x4xf32>
  %max = graph.reduce_max %x {axes = array<i64: 2>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<2x4xf32>
  // CHECK-NEXT: %[[MIN:.*]] = graph.reduce_min %[[I]] {axes = array<i64: 0>} : tensor<2x4x3xi64> -> tensor<1x4x3xi64>
  %min = graph.reduce_min %i {axes = array<i64: 0>} : tensor<2x4x3xi64> -> tensor<1x4x3xi64>
  // CHECK-NEXT: %[[PROD:.*]] = graph.reduce_prod %[[X]] {axes = array<i64: 1>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<2x3xf32>
  %prod = graph.reduce_prod %x {axes = array<i64: 1>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<2x3xf32>
  // CHECK-NEXT: %[[L1:.*]] = graph.reduce_l1 %[[I]] {axes = array<i64: 2>} : tensor<2x4x3xi64> -> tensor<2x4x1xi64>
  %l1 = graph.reduce_l1 %i {axes = array<i64: 2>} : tensor<2x4x3xi64> -> tensor<2x4x1xi64>
  // CHECK-NEXT: %[[L2:.*]] = graph.reduce_l2 %[[X]] {axes = array<i64: 0, 1, 2>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<f32>
  %l2 = graph.reduce_l2 %x {axes = array<i64: 0, 1, 2>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<f32>
  // CHECK-NEXT: %[[SQ:.*]] = graph.reduce_sum_square %[[X]] {axes = array<i64: 1, 2>} : tensor<2x4x3xf32> -> tensor<2x1x1xf32>
  %sq = graph.reduce_sum_square %x {axes = array<i64: 1, 2>} : tensor<2x4x3xf32> -> tensor<2x1x1xf32>
  // CHECK-NEXT: %[[LS:.*]] = graph.reduce_log_sum %[[X]] {axes = array<i64: 2>} : tensor<2x4x3xf32> -> tensor<2x4x1xf32>
  %ls = graph.reduce_log_sum %x {axes = array<i64: 2>} : tensor<2x4x3xf32> -> tensor<2x4x1xf32>
  // CHECK-NEXT: %[[LSE:.*]] = graph.reduce_log_sum_exp %[[X]] {axes = array<i64: 0, 2>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<4xf32>
  %lse = graph.reduce_log_sum_exp %x {axes = array<i64: 0, 2>, keepdims = 0 : i64} : tensor<2x4x3xf32> -> tensor<4xf32>
  // arg_max / arg_min: one axis, i64 indices; keepdims (1) and select_last_index (0) elided.
  // CHECK-NEXT: %[[AMAX:.*]] = graph.arg_max %[[X]] {axis = 1 : i64} : tensor<2x4x3xf32> -> tensor<2x1x3xi64>
  %amax = graph.arg_max %x {axis = 1 : i64, keepdims = 1 : i64, select_last_index = 0 : i64} : tensor<2x4x3xf32> -> tensor<2x1x3xi64>
  // CHECK-NEXT: %[[AMIN:.*]] = graph.arg_min %[[I]] {axis = 2 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : tensor<2x4x3xi64> -> tensor<2x4xi64>
  %amin = graph.arg_min %i {axis = 2 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : tensor<2x4x3xi64> -> tensor<2x4xi64>
  // CHECK-NEXT: func.return
  func.return
}

// Zero-size tensors (a dim of size 0): empty constants, ops on them and results without
// elements, a reduction over an empty set, a matmul with K = 0.
// CHECK-LABEL: func.func @zero_size(
// CHECK-SAME:    %[[X:.*]]: tensor<2x0x3xf32>, %[[A:.*]]: tensor<4x0xf32>, %[[B:.*]]: tensor<0x5xf32>) {
func.func @zero_size(%x: tensor<2x0x3xf32>, %a: tensor<4x0xf32>, %b: tensor<0x5xf32>) {
  // CHECK-NEXT: %[[E:.*]] = graph.constant dense<> : tensor<2x0x3xf32>
  %e = graph.constant dense<> : tensor<2x0x3xf32>
  // CHECK-NEXT: %[[ADD:.*]] = graph.add %[[X]], %[[E]] : (tensor<2x0x3xf32>, tensor<2x0x3xf32>) -> tensor<2x0x3xf32>
  %add = graph.add %x, %e : (tensor<2x0x3xf32>, tensor<2x0x3xf32>) -> tensor<2x0x3xf32>
  // CHECK-NEXT: %[[MAX:.*]] = graph.reduce_max %[[ADD]] {axes = array<i64: 1>} : tensor<2x0x3xf32> -> tensor<2x1x3xf32>
  %max = graph.reduce_max %add {axes = array<i64: 1>} : tensor<2x0x3xf32> -> tensor<2x1x3xf32>
  // CHECK-NEXT: %[[MM:.*]] = graph.matmul %[[A]], %[[B]] : (tensor<4x0xf32>, tensor<0x5xf32>) -> tensor<4x5xf32>
  %mm = graph.matmul %a, %b : (tensor<4x0xf32>, tensor<0x5xf32>) -> tensor<4x5xf32>
  // CHECK-NEXT: func.return
  func.return
}

// graph.constant: inline dense (the type comes from the value), splats, every element type,
// and blobs (#graph.weights<key> : type) filled from the file's dialect_resources section.
// CHECK-LABEL: func.func @constants() {
func.func @constants() {
  // CHECK-NEXT: %[[F:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %f = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK-NEXT: %[[SPLAT:.*]] = graph.constant dense<5.000000e-01> : tensor<256x256xf32>
  %splat = graph.constant dense<0.5> : tensor<256x256xf32>
  // CHECK-NEXT: %[[SCALAR:.*]] = graph.constant dense<7> : tensor<i64>
  %scalar = graph.constant dense<7> : tensor<i64>
  // CHECK-NEXT: %[[INT:.*]] = graph.constant dense<[1, -2, 9223372036854775807]> : tensor<3xi64>
  %int = graph.constant dense<[1, -2, 9223372036854775807]> : tensor<3xi64>
  // CHECK-NEXT: %[[BOOL:.*]] = graph.constant dense<[true, false, true]> : tensor<3xi1>
  %bool = graph.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK-NEXT: %[[TRUE:.*]] = graph.constant dense<true> : tensor<2x2xi1>
  %true = graph.constant dense<true> : tensor<2x2xi1>
  // CHECK-NEXT: %[[I32:.*]] = graph.constant dense<[1, 2]> : tensor<2xi32>
  %i32 = graph.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK-NEXT: %[[I8:.*]] = graph.constant dense<[-128, 127]> : tensor<2xi8>
  %i8 = graph.constant dense<[-128, 127]> : tensor<2xi8>
  // CHECK-NEXT: %[[U8:.*]] = graph.constant dense<[0, 255]> : tensor<2xui8>
  %u8 = graph.constant dense<[0, 255]> : tensor<2xui8>
  // CHECK-NEXT: %[[F64:.*]] = graph.constant dense<[1.500000e+00, -2.500000e+00]> : tensor<2xf64>
  %f64 = graph.constant dense<[1.5, -2.5]> : tensor<2xf64>
  // CHECK-NEXT: %[[F16:.*]] = graph.constant dense<1.000000e+00> : tensor<3xf16>
  %f16 = graph.constant dense<1.0> : tensor<3xf16>
  // CHECK-NEXT: %[[NAMED:.*]] = graph.constant dense<-1.000000e+00> : tensor<2x3xf32> {name = "c"}
  %named = graph.constant dense<-1.0> : tensor<2x3xf32> {name = "c"}
  // CHECK-NEXT: %[[W:.*]] = graph.constant #graph.weights<fc_w> : tensor<2x2xf32>
  %w = graph.constant #graph.weights<fc_w> : tensor<2x2xf32>
  // CHECK-NEXT: %[[IDX:.*]] = graph.constant #graph.weights<w_key> : tensor<2xi64>
  %idx = graph.constant #graph.weights<w_key> : tensor<2xi64>
  // CHECK-NEXT: func.return
  func.return
}

// Blob keys referenced by #graph.weights are written back sorted, hex in lower case
// (xDSL 0.75 puts all keys of a dialect on one line).
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     graph: {
// CHECK-NEXT:       fc_w: "0x080000000000803f000000400000404000008040",w_key: "0x0800000001000000000000000200000000000000"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}

{-#
  dialect_resources: {
    graph: {
      w_key: "0x0800000001000000000000000200000000000000",
      fc_w: "0x080000000000803F000000400000404000008040"
    }
  }
#-}
