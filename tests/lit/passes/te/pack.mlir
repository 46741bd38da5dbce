// te-pack: the register-blocked matmul reads B[k, j..j+15] for each k, a row of B apart.
// te-pack inserts a compute "packed" = Bp[j / 16, k, j % 16] = B[k, j] before it and makes it
// read Bp instead; convert-te-to-loop gives Bp a scratch buffer (a kernel argument that @main
// allocates), fills it in a nest of its own, and simplifies the divisions away: with j split
// by 32 then 16, j / 16 = i1.o * 2 + i1.i.o and j % 16 = i1.i.i, so loop-vectorize loads Bp
// with unit stride, walking it contiguously along k. A factor that does not divide the
// dimension pads the last block, clamping the copy's reads.
// RUN: minitvm-opt %s -p 'te-pack{kernel=matmul compute=0 operand=1 factor=16},te-pack{kernel=ragged compute=0 operand=1 dim=1 factor=16 packed-name=B_panels}' | filecheck %s
// RUN: minitvm-opt %s -p 'convert-te-to-loop,loop-unroll,loop-vectorize' | filecheck %s --check-prefix=BEFORE
// RUN: minitvm-opt %s -p 'te-pack{kernel=matmul compute=0 operand=1 factor=16},convert-te-to-loop,loop-unroll,loop-vectorize' | filecheck %s --check-prefix=AFTER
// RUN: not minitvm-opt %s -p 'te-pack{kernel=matmul compute=0 operand=2 factor=16}' 2>&1 | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x64xf32>)
// CHECK-NEXT:    %[[BP:.*]] = te.compute "packed" (%[[X:.*]], %[[Y:.*]], %[[Z:.*]]) in [4, 8, 16] : tensor<4x8x16xf32> {
// CHECK-NEXT:      %[[W:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[XW:.*]] = arith.muli %[[X]], %[[W]] : index
// CHECK-NEXT:      %[[COL:.*]] = arith.addi %[[XW]], %[[Z]] : index
// CHECK-NEXT:      %[[V:.*]] = te.read %[[B]][%[[Y]], %[[COL]]] : tensor<8x64xf32>
// CHECK-NEXT:      te.yield %[[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = te.compute (%[[I:.*]], %[[J:.*]]) in [4, 64] sum (%[[K:.*]]) in [8] {schedule = {{.*}}} : tensor<4x64xf32> {
// CHECK-NEXT:      %{{.*}} = te.read %[[A]][%[[I]], %[[K]]] : tensor<4x8xf32>
// CHECK-NEXT:      %[[W2:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[JO:.*]] = arith.divui %[[J]], %[[W2]] : index
// CHECK-NEXT:      %[[JI:.*]] = arith.remui %[[J]], %[[W2]] : index
// CHECK-NEXT:      %{{.*}} = te.read %[[BP]][%[[JO]], %[[K]], %[[JI]]] : tensor<4x8x16xf32>
// CHECK-LABEL: func.func @ragged(
// CHECK-NEXT:    te.compute "B_panels" (%{{.*}}) in [2, 8, 16] : tensor<2x8x16xf32> {
// CHECK:           %[[LAST:.*]] = arith.constant 19 : index
// CHECK-NEXT:      %[[CLAMPED:.*]] = arith.minsi %{{.*}}, %[[LAST]] : index
// CHECK-NEXT:      te.read %{{.*}}[%{{.*}}, %[[CLAMPED]]] : tensor<8x20xf32>

// BEFORE-LABEL: func.func @matmul(
// BEFORE-SAME:    %{{.*}}: memref<4x8xf32>, %[[B:.*]]: memref<8x64xf32>, %{{.*}}: memref<4x64xf32>)
// BEFORE:         loop.for %[[K:.*]] = 0 to 8 step 1 {
// BEFORE:           loop.vload %[[B]][%[[K]], %{{.*}}] : memref<8x64xf32> -> vector<16xf32>

// AFTER-LABEL: func.func @matmul(
// AFTER-SAME:    %{{.*}}: memref<4x8xf32>, %[[B:.*]]: memref<8x64xf32>, %[[C:.*]]: memref<4x64xf32>, %[[BP:.*]]: memref<4x8x16xf32>)
// AFTER-NEXT:    loop.for %[[X:.*]] = 0 to 4 step 1 {
// AFTER-NEXT:      loop.for %[[Y:.*]] = 0 to 8 step 1 {
// AFTER-NEXT:        loop.for %[[Z:.*]] = 0 to 16 step 1 {
// AFTER:               %[[V:.*]] = loop.load %[[B]][%[[Y]], %{{.*}}] : memref<8x64xf32> -> f32
// AFTER-NEXT:          loop.store %[[V]], %[[BP]][%[[X]], %[[Y]], %[[Z]]] : f32, memref<4x8x16xf32>
// AFTER:         loop.for %[[JO:.*]] = 0 to 2 step 1 {
// AFTER:           loop.for %[[K:.*]] = 0 to 8 step 1 {
// AFTER-NEXT:        %{{.*}} = arith.constant 0 : index
// AFTER-NEXT:        %[[JIO:.*]] = arith.constant 0 : index
// AFTER-NEXT:        %[[JII:.*]] = arith.constant 0 : index
// AFTER:             %[[TWO:.*]] = arith.constant 2 : index
// AFTER-NEXT:        %[[JO2:.*]] = arith.muli %[[JO]], %[[TWO]] : index
// AFTER-NEXT:        %[[PANEL:.*]] = arith.addi %[[JO2]], %[[JIO]] : index
// AFTER-NEXT:        %[[BV:.*]] = loop.vload %[[BP]][%[[PANEL]], %[[K]], %[[JII]]] : memref<4x8x16xf32> -> vector<16xf32>
// AFTER:             math.fma %{{.*}}, %[[BV]], %{{.*}} : vector<16xf32>
// AFTER-NOT:         loop.vload %[[B]]

// ERR: error: @matmul compute 0 reads no operand 2 (operands: 0 (tensor<4x8xf32>), 1 (tensor<8x64xf32>))
func.func @matmul(%A: tensor<4x8xf32>, %B: tensor<8x64xf32>) -> tensor<4x64xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [4, 64] sum (%k) in [8] {schedule = [#te.split<"i1", 32>, #te.split<"i1.i", 16>, #te.reorder<["i1.o", "r0", "i0", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<4x64xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    %b = te.read %B[%k, %j] : tensor<8x64xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %c : tensor<4x64xf32>
}

func.func @ragged(%A: tensor<4x8xf32>, %B: tensor<8x20xf32>) -> tensor<4x20xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [4, 20] sum (%k) in [8] : tensor<4x20xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    %b = te.read %B[%k, %j] : tensor<8x20xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %c : tensor<4x20xf32>
}
