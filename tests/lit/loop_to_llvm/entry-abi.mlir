// convert-loop-to-llvm, the entry ABI: @main becomes `void main(ptr io, ptr consts, ptr arena)`.
// Its buffer arguments are io[0], io[1], ...; each loop.constant the next consts[n]; each
// loop.alloc arena + offset (64-byte aligned, in order). The layout is recorded on the module
// as minitvm.entry for the runtime; kernels keep one (noalias) pointer per buffer.
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s

// CHECK:       builtin.module attributes {minitvm.entry = {
// CHECK-SAME:    io = [memref<2x3xf32>, memref<2x3xf32>],
// CHECK-SAME:    constants = {{\[}}[#graph.weights<w_4fd1cc61b1d5>, memref<2x3xf32>], [dense<1.000000e+00> : tensor<2x3xf32>, memref<2x3xf32>]],
// CHECK-SAME:    allocs = array<i64: 0, 24, 64, 24>,
// CHECK-SAME:    arena_size = 128 : i64}} {

// CHECK-LABEL: llvm.func @add(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}) {
func.func @add(%a: memref<2x3xf32>, %b: memref<2x3xf32>, %out: memref<2x3xf32>) {
  loop.for %i = 0 to 2 step 1 {
    loop.for %j = 0 to 3 step 1 {
      %x = loop.load %a[%i, %j] : memref<2x3xf32> -> f32
      %y = loop.load %b[%i, %j] : memref<2x3xf32> -> f32
      %s = arith.addf %x, %y : f32
      loop.store %s, %out[%i, %j] : f32, memref<2x3xf32>
    }
  }
  func.return
}

// CHECK-LABEL: llvm.func @main(
// CHECK-SAME:    %[[IO:.*]]: !llvm.ptr, %[[CONSTS:.*]]: !llvm.ptr, %[[ARENA:.*]]: !llvm.ptr) {
// CHECK-NEXT:    %[[IN:.*]] = llvm.load %[[IO]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[SLOT1:.*]] = llvm.getelementptr inbounds %[[IO]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[OUT:.*]] = llvm.load %[[SLOT1]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[W:.*]] = llvm.load %[[CONSTS]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[CSLOT1:.*]] = llvm.getelementptr inbounds %[[CONSTS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[ONES:.*]] = llvm.load %[[CSLOT1]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[T1:.*]] = llvm.getelementptr inbounds %[[ARENA]][64] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[BYTES:.*]] = llvm.mlir.constant(24) : i64
// CHECK-NEXT:    %[[FALSE:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    llvm.br ^[[BEGIN:begin[_0-9]*]]
// CHECK-NEXT:  ^[[BEGIN]]:
// CHECK-NEXT:    llvm.call @add(%[[IN]], %[[W]], %[[ARENA]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.call @add(%[[ARENA]], %[[ONES]], %[[T1]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.call_intrinsic "llvm.memcpy.p0.p0.i64"(%[[OUT]], %[[T1]], %[[BYTES]], %[[FALSE]])
// CHECK-NEXT:    llvm.return
func.func @main(%in: memref<2x3xf32>, %out: memref<2x3xf32>) {
  %w = loop.constant #graph.weights<w_4fd1cc61b1d5> : memref<2x3xf32>
  %t0 = loop.alloc : memref<2x3xf32>
  func.call @add(%in, %w, %t0) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
  %ones = loop.constant dense<1.0> : tensor<2x3xf32> : memref<2x3xf32>
  %t1 = loop.alloc : memref<2x3xf32>
  func.call @add(%t0, %ones, %t1) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
  loop.copy %t1, %out : memref<2x3xf32>, memref<2x3xf32>
  func.return
}

// The weights stay in the resource section, for the runtime to fetch.
// CHECK:       dialect_resources: {
// CHECK-NEXT:    graph: {
// CHECK-NEXT:      w_4fd1cc61b1d5: "0x08000000

{-#
  dialect_resources: {
    graph: {
      w_4fd1cc61b1d5: "0x080000000000803f0000004000004040000080400000a0400000c040"
    }
  }
#-}
