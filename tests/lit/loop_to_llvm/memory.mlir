// convert-loop-to-llvm, buffers: kernel buffer arguments are noalias (the destination-passing
// contract: a buffer a kernel writes reaches it through one argument only, see the pass'
// `noalias` option); every access is a getelementptr inbounds of the element type
// at the row-major index; vector accesses load and store vector<N x T> at the first element
// with the element's alignment; i1 elements are bytes; loop.copy is a memcpy; scratch buffers
// of a kernel live on the stack (aligned to 64) when small, in aligned_alloc'd memory when not.
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s

// CHECK-LABEL: llvm.func @axpy(
// CHECK-SAME:    %[[ALPHA:[^:]*]]: !llvm.ptr {llvm.noalias}, %[[X:[^:]*]]: !llvm.ptr {llvm.noalias}, %[[Y:[^:]*]]: !llvm.ptr {llvm.noalias}) {
// CHECK:         %[[C64:.*]] = llvm.mlir.constant(64) : i64
// CHECK:         %[[S:.*]] = llvm.load %[[ALPHA]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : vector<16xf32>
// CHECK-NEXT:    %[[V:.*]] = llvm.insertelement %[[S]], %[[U]][%{{.*}} : i64] : vector<16xf32>
// CHECK-NEXT:    %[[A:.*]] = llvm.shufflevector %[[V]], %[[U]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
// CHECK:         llvm.icmp "slt" %{{.*}}, %[[C64]] : i64
// CHECK-NEXT:    llvm.cond_br %{{.*}}, ^[[BODY:body[_0-9]*]], ^{{.*}}
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %[[ROW:.*]] = llvm.mul %{{.*}}, %[[C64]] overflow<nsw> : i64
// CHECK-NEXT:    %[[IDX:.*]] = llvm.add %[[ROW]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[PX:.*]] = llvm.getelementptr inbounds %[[X]][%[[IDX]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[VX:.*]] = llvm.load %[[PX]] {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    %[[PY:.*]] = llvm.getelementptr inbounds %[[Y]][%[[IDX]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[VY:.*]] = llvm.load %[[PY]] {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:    %[[R:.*]] = llvm.intr.fma(%[[A]], %[[VX]], %[[VY]]) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK-NEXT:    llvm.store %[[R]], %[[PY]] {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
func.func @axpy(%alpha: memref<1xf32>, %x: memref<3x64xf32>, %y: memref<3x64xf32>) {
  %c0 = arith.constant 0 : index
  %s = loop.load %alpha[%c0] : memref<1xf32> -> f32
  %a = loop.broadcast %s : f32 -> vector<16xf32>
  loop.for %i = 0 to 3 step 1 {
    loop.for %j = 0 to 64 step 16 {
      %vx = loop.vload %x[%i, %j] : memref<3x64xf32> -> vector<16xf32>
      %vy = loop.vload %y[%i, %j] : memref<3x64xf32> -> vector<16xf32>
      %r = math.fma %a, %vx, %vy : vector<16xf32>
      loop.vstore %r, %y[%i, %j] : vector<16xf32>, memref<3x64xf32>
    }
  }
  func.return
}

// Constant indices fold into a constant GEP index: [1, 2] of a 4x5 buffer is element 7.
// CHECK-LABEL: llvm.func @bools(
// CHECK-SAME:    %[[F:[^:]*]]: !llvm.ptr {llvm.noalias}, %[[B:[^:]*]]: !llvm.ptr {llvm.noalias}) {
// CHECK:         %[[PF:.*]] = llvm.getelementptr inbounds %[[F]][7] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[PF]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[POS:.*]] = llvm.fcmp "ogt" %[[X]], %{{.*}} : f32
// CHECK-NEXT:    %[[PB:.*]] = llvm.getelementptr inbounds %[[B]][7] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[BYTE:.*]] = llvm.zext %[[POS]] : i1 to i8
// CHECK-NEXT:    llvm.store %[[BYTE]], %[[PB]] {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK-NEXT:    %[[LOADED:.*]] = llvm.load %[[PB]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    %{{.*}} = llvm.icmp "ne" %[[LOADED]], %{{.*}} : i8
func.func @bools(%f: memref<4x5xf32>, %b: memref<4x5xi1>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = loop.load %f[%c1, %c2] : memref<4x5xf32> -> f32
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %x, %zero : f32
  loop.store %pos, %b[%c1, %c2] : i1, memref<4x5xi1>
  %back = loop.load %b[%c1, %c2] : memref<4x5xi1> -> i1
  %r = arith.select %back, %x, %zero : f32
  loop.store %r, %f[%c1, %c2] : f32, memref<4x5xf32>
  func.return
}

// loop.prefetch is llvm.prefetch (read, locality 2: into L2, data) of a getelementptr that
// is not inbounds: the next tile it asks for may lie beyond the buffer.
// CHECK-LABEL: llvm.func @prefetch(
// CHECK-SAME:    %[[W:[^:]*]]: !llvm.ptr {llvm.noalias}, %[[P:[^:]*]]: i64, %[[K:[^:]*]]: i64) {
// CHECK:         %[[READ:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[L2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[DATA:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         %[[AT:.*]] = llvm.getelementptr %[[W]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.prefetch.p0"(%[[AT]], %[[READ]], %[[L2]], %[[DATA]]) : (!llvm.ptr, i32, i32, i32) -> ()
// CHECK-NEXT:    llvm.return
func.func @prefetch(%w: memref<4x8x16xf32>, %p: index, %k: index) {
  %c0 = arith.constant 0 : index
  loop.prefetch %w[%p, %k, %c0] : memref<4x8x16xf32>
  func.return
}

// CHECK-LABEL: llvm.func @scratch(
// CHECK-SAME:    %[[IN:[^:]*]]: !llvm.ptr {llvm.noalias}, %[[OUT:[^:]*]]: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(16) : i64
// CHECK-NEXT:    %[[SMALL:.*]] = llvm.alloca %[[N]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[C64:.*]] = llvm.mlir.constant(64) : i64
// CHECK-NEXT:    %[[SIZE:.*]] = llvm.mlir.constant(400000) : i64
// CHECK-NEXT:    %[[BIG:.*]] = llvm.call @aligned_alloc(%[[C64]], %[[SIZE]]) : (i64, i64) -> !llvm.ptr
// CHECK-NEXT:    %[[FALSE:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    llvm.br ^[[BEGIN:begin[_0-9]*]]
// CHECK-NEXT:  ^[[BEGIN]]:
// CHECK-NEXT:    llvm.call_intrinsic "llvm.memcpy.p0.p0.i64"(%[[SMALL]], %[[IN]], %[[C64]], %[[FALSE]]) : (!llvm.ptr, !llvm.ptr, i64, i1) -> ()
// CHECK-NEXT:    llvm.call_intrinsic "llvm.memcpy.p0.p0.i64"(%[[OUT]], %[[SMALL]], %[[C64]], %[[FALSE]]) : (!llvm.ptr, !llvm.ptr, i64, i1) -> ()
// CHECK-NEXT:    llvm.call @free(%[[BIG]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK:       llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK-NEXT:  llvm.func @free(!llvm.ptr)
func.func @scratch(%in: memref<16xf32>, %out: memref<16xf32>) {
  %small = loop.alloc : memref<16xf32>
  %big = loop.alloc : memref<100000xf32>
  loop.copy %in, %small : memref<16xf32>, memref<16xf32>
  loop.copy %small, %out : memref<16xf32>, memref<16xf32>
  func.return
}

