// loop-plan-memory with buffers without elements (a dim of size 0): they take no bytes, get
// offset 0 and leave the others' offsets and the arena size as they would be without them;
// convert-loop-to-llvm records them with size 0.
// RUN: minitvm-opt %s -p loop-plan-memory | filecheck %s
// RUN: minitvm-opt %s -p loop-plan-memory,convert-loop-to-llvm | filecheck %s --check-prefix=LLVM

func.func @f(%a: memref<2x0xf32>, %b: memref<16xf32>) {
  func.return
}

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[E:.*]] = loop.alloc {offset = 0 : i64} : memref<2x0xf32>
// CHECK-NEXT:    %[[A:.*]] = loop.alloc {offset = 0 : i64} : memref<16xf32>
// CHECK-NEXT:    func.call @f(%[[E]], %[[A]])
// CHECK-NEXT:    %[[B:.*]] = loop.alloc {offset = 64 : i64} : memref<16xf32>
// CHECK-NEXT:    %[[F:.*]] = loop.alloc {offset = 0 : i64} : memref<2x0xf32>
// CHECK-NEXT:    func.call @f(%[[F]], %[[B]])
// CHECK-NEXT:    func.call @f(%[[E]], %[[A]])

// LLVM:       minitvm.entry = {
// LLVM-SAME:    allocs = array<i64: 0, 0, 0, 64, 64, 64, 0, 0>,
// LLVM-SAME:    arena_size = 128 : i64}
func.func @main(%x: memref<4xf32>) {
  %e = loop.alloc : memref<2x0xf32>
  %a = loop.alloc : memref<16xf32>
  func.call @f(%e, %a) : (memref<2x0xf32>, memref<16xf32>) -> ()
  %b = loop.alloc : memref<16xf32>
  %g = loop.alloc : memref<2x0xf32>
  func.call @f(%g, %b) : (memref<2x0xf32>, memref<16xf32>) -> ()
  func.call @f(%e, %a) : (memref<2x0xf32>, memref<16xf32>) -> ()
  func.return
}
