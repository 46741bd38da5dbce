// convert-loop-to-llvm, scalar and vector arithmetic: index is i64 with nsw arithmetic,
// floordivsi is a division plus a remainder-based correction, maximumf is llvm.maximum,
// casts xDSL's llvm dialect lacks are ours (llvm.fptosi/uitofp), atan an intrinsic, erf on
// f32 a rational polynomial, log1p a libm call, vectors lane by lane.
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s

// CHECK-LABEL: llvm.func @ints(
// CHECK-SAME:    %[[A:.*]]: i64, %[[B:.*]]: i64, %[[I:.*]]: i64) -> i64 {
// CHECK-DAG:     %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK-DAG:     %[[C3:.*]] = llvm.mlir.constant(3) : i64
// CHECK:         %[[Q:.*]] = llvm.sdiv %[[A]], %[[B]] : i64
// CHECK-NEXT:    %[[R:.*]] = llvm.srem %[[A]], %[[B]] : i64
// CHECK-NEXT:    %[[INEXACT:.*]] = llvm.icmp "ne" %[[R]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[SIGNS:.*]] = llvm.xor %[[R]], %[[B]] : i64
// CHECK-NEXT:    %[[NEG:.*]] = llvm.icmp "slt" %[[SIGNS]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[BOTH:.*]] = llvm.and %[[INEXACT]], %[[NEG]] : i1
// CHECK-NEXT:    %[[ADJ:.*]] = llvm.zext %[[BOTH]] : i1 to i64
// CHECK-NEXT:    %[[FLOOR:.*]] = llvm.sub %[[Q]], %[[ADJ]] : i64
// CHECK-NEXT:    %[[MAX:.*]] = llvm.call_intrinsic "llvm.smax.i64"(%[[FLOOR]], %[[A]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[SCALED:.*]] = llvm.mul %[[I]], %[[C3]] overflow<nsw> : i64
// CHECK-NEXT:    %[[SUM:.*]] = llvm.add %[[MAX]], %[[SCALED]] overflow<nsw> : i64
// CHECK-NEXT:    llvm.return %[[SUM]] : i64
func.func @ints(%a: i64, %b: i64, %i: index) -> i64 {
  %q = arith.floordivsi %a, %b : i64
  %m = arith.maxsi %q, %a : i64
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %s = arith.muli %i, %c3 : index
  %t = arith.addi %s, %c0 : index
  %u = arith.index_cast %t : index to i64
  %r = arith.addi %m, %u overflow<nsw> : i64
  func.return %r : i64
}

// CHECK-LABEL: llvm.func @floats(
// CHECK-SAME:    %[[X:.*]]: f32, %[[N:.*]]: i8) -> f32 {
// CHECK:         %[[RELU:.*]] = llvm.call_intrinsic "llvm.maximum.f32"(%[[X]], %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT:    %[[T:.*]] = llvm.call_intrinsic "llvm.atan.f32"(%[[RELU]]) : (f32) -> f32
// CHECK-NEXT:    %[[I:.*]] = llvm.fptosi %[[T]] : f32 to i64
// CHECK-NEXT:    %[[F:.*]] = llvm.uitofp %[[N]] : i8 to f32
// CHECK-NEXT:    %[[L:.*]] = llvm.call @log1pf(%[[F]]) : (f32) -> f32
// CHECK-NEXT:    %[[S:.*]] = llvm.sitofp %[[I]] : i64 to f32
// CHECK-NEXT:    %[[SUM:.*]] = llvm.fadd %[[S]], %[[L]] {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    llvm.return %[[SUM]] : f32
func.func @floats(%x: f32, %n: i8) -> f32 {
  %zero = arith.constant 0.0 : f32
  %relu = arith.maximumf %x, %zero : f32
  %t = math.atan %relu : f32
  %i = arith.fptosi %t : f32 to i64
  %f = arith.uitofp %n : i8 to f32
  %l = math.log1p %f : f32
  %s = arith.sitofp %i : i64 to f32
  %sum = arith.addf %s, %l fastmath<contract> : f32
  func.return %sum : f32
}

// tanh on f32 is vector code, not a libm call per lane: Cephes' tanhf on |x|, the exp form
// 1 - 2 / (exp(2|x|) + 1) and the polynomial |x| + |x|^3 P(x^2) both computed, the
// polynomial taken below 0.625, the sign of x put back; on f64 the intrinsic.
// CHECK-LABEL: llvm.func @tanh(
// CHECK-SAME:    %[[X:.*]]: vector<8xf32>, %[[D:.*]]: f64) -> vector<8xf32> {
// CHECK:         %[[A:.*]] = llvm.call_intrinsic "llvm.fabs.v8f32"(%[[X]])
// CHECK-NOT:     llvm.call @
// CHECK:         %[[NEAR:.*]] = llvm.fcmp "olt" %[[A]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:    %[[PICK:.*]] = llvm.select %[[NEAR]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK-NEXT:    %[[T:.*]] = llvm.intr.copysign(%[[PICK]], %[[X]])
// CHECK:         llvm.call_intrinsic "llvm.tanh.f64"(%[[D]]) : (f64) -> f64
func.func @tanh(%x: vector<8xf32>, %d: f64) -> vector<8xf32> {
  %t = math.tanh %x : vector<8xf32>
  %e = math.tanh %d : f64
  func.return %t : vector<8xf32>
}

// erf(x) = x * P(x^2) / Q(x^2) after clamping x to [-4, 4] with NaN-propagating min/max.
// CHECK-LABEL: llvm.func @erf(
// CHECK-SAME:    %[[X:.*]]: vector<8xf32>) -> vector<8xf32> {
// CHECK:         %[[LO:.*]] = llvm.call_intrinsic "llvm.maximum.v8f32"(%[[X]], %{{.*}})
// CHECK-NEXT:    %[[C:.*]] = llvm.call_intrinsic "llvm.minimum.v8f32"(%[[LO]], %{{.*}})
// CHECK-NEXT:    %[[X2:.*]] = llvm.fmul %[[C]], %[[C]] : vector<8xf32>
// CHECK-COUNT-6: llvm.intr.fma
// CHECK-NEXT:    %[[P:.*]] = llvm.fmul %[[C]], %{{.*}} : vector<8xf32>
// CHECK-COUNT-4: llvm.intr.fma
// CHECK-NEXT:    %[[R:.*]] = llvm.fdiv %[[P]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:    llvm.return %[[R]] : vector<8xf32>
func.func @erf(%x: vector<8xf32>) -> vector<8xf32> {
  %r = math.erf %x : vector<8xf32>
  func.return %r : vector<8xf32>
}

// exp(x) = 2^n * P(r), n = floor(x log2(e) + 1/2), r = x - n ln 2 (in two FMAs); 2^n as two
// factors built in the exponent bits; inf, 0 and NaN restored by selects. No libm call.
// CHECK-LABEL: llvm.func @exp(
// CHECK-SAME:    %[[X:.*]]: vector<8xf32>) -> vector<8xf32> {
// CHECK:         %[[LO:.*]] = llvm.call_intrinsic "llvm.maximum.v8f32"(%[[X]], %{{.*}})
// CHECK-NEXT:    %[[C:.*]] = llvm.call_intrinsic "llvm.minimum.v8f32"(%[[LO]], %{{.*}})
// CHECK-NEXT:    %[[T:.*]] = llvm.intr.fma(%[[C]], %{{.*}}, %{{.*}})
// CHECK-NEXT:    %[[N:.*]] = llvm.intr.floor(%[[T]])
// CHECK-COUNT-7: llvm.intr.fma
// CHECK:         %[[NI:.*]] = llvm.fptosi %[[N]] : vector<8xf32> to vector<8xi32>
// CHECK-NEXT:    %[[H:.*]] = llvm.ashr %[[NI]], %{{.*}} : vector<8xi32>
// CHECK-COUNT-2: llvm.bitcast
// CHECK:         %[[BIG:.*]] = llvm.fcmp "ogt" %[[X]], %{{.*}} : vector<8xf32>
// CHECK:         %[[NAN:.*]] = llvm.fcmp "uno" %[[X]], %[[X]] : vector<8xf32>
// CHECK-NEXT:    %[[R:.*]] = llvm.select %[[NAN]], %[[X]], %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK-NEXT:    llvm.return %[[R]] : vector<8xf32>
// CHECK-NOT:     llvm.call @expf
func.func @exp(%x: vector<8xf32>) -> vector<8xf32> {
  %r = math.exp %x : vector<8xf32>
  func.return %r : vector<8xf32>
}

// A libm function on a vector: one call per lane.
// CHECK-LABEL: llvm.func @vcbrt(
// CHECK-SAME:    %[[X:.*]]: vector<2xf64>) -> vector<2xf64> {
// CHECK:         %[[U:.*]] = llvm.mlir.undef : vector<2xf64>
// CHECK-NEXT:    %[[E0:.*]] = llvm.extractelement %[[X]][%[[L0:.*]] : i64] : vector<2xf64>
// CHECK-NEXT:    %[[R0:.*]] = llvm.call @cbrt(%[[E0]]) : (f64) -> f64
// CHECK-NEXT:    %[[V0:.*]] = llvm.insertelement %[[R0]], %[[U]][%[[L0]] : i64] : vector<2xf64>
// CHECK-NEXT:    %[[E1:.*]] = llvm.extractelement %[[X]][%[[L1:.*]] : i64] : vector<2xf64>
// CHECK-NEXT:    %[[R1:.*]] = llvm.call @cbrt(%[[E1]]) : (f64) -> f64
// CHECK-NEXT:    %[[V1:.*]] = llvm.insertelement %[[R1]], %[[V0]][%[[L1]] : i64] : vector<2xf64>
// CHECK-NEXT:    llvm.return %[[V1]] : vector<2xf64>
func.func @vcbrt(%x: vector<2xf64>) -> vector<2xf64> {
  %r = math.cbrt %x : vector<2xf64>
  func.return %r : vector<2xf64>
}

// Declarations of the libm functions used, once each.
// CHECK:       llvm.func @log1pf(f32) -> f32
// CHECK-NEXT:  llvm.func @cbrt(f64) -> f64
