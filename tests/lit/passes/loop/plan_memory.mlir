// loop-plan-memory: each loop.alloc of @main is live from its first use to its last; buffers
// whose ranges overlap get disjoint bytes, the others may share (greedy by size, best fit).
// Two arguments of one call never share (kernels' noalias contract). convert-loop-to-llvm
// then places the allocs at these offsets.
// RUN: minitvm-opt %s -p loop-plan-memory | filecheck %s
// RUN: minitvm-opt %s -p loop-plan-memory,convert-loop-to-llvm | filecheck %s --check-prefix=LLVM

func.func @f(%a: memref<256xf32>, %b: memref<256xf32>) {
  func.return
}
func.func @g(%a: memref<256xf32>, %b: memref<256xf32>, %c: memref<512xf32>, %s: memref<8xf32>) {
  func.return
}

// Live ranges (op positions): %a 1-8, %b 3-5, %c 5-8, %d 8-9, %s 8. Biggest first: %d at 0;
// %a conflicts with %d (at 8): 2048; %b conflicts with %a only: the gap below %a, 0 (%d's
// bytes: %d is defined after %b dies); %c conflicts with %a, %b and %d: 3072; %s (scratch of
// the last call) conflicts with %a, %c and %d: 4096. Arena: 4160 bytes instead of 5184.
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[A:.*]] = loop.alloc {offset = 2048 : i64} : memref<256xf32>
// CHECK-NEXT:    func.call @f(%{{.*}}, %[[A]])
// CHECK-NEXT:    %[[B:.*]] = loop.alloc {offset = 0 : i64} : memref<256xf32>
// CHECK-NEXT:    func.call @f(%[[A]], %[[B]])
// CHECK-NEXT:    %[[C:.*]] = loop.alloc {offset = 3072 : i64} : memref<256xf32>
// CHECK-NEXT:    func.call @f(%[[B]], %[[C]])
// CHECK-NEXT:    %[[D:.*]] = loop.alloc {offset = 0 : i64} : memref<512xf32>
// CHECK-NEXT:    %[[S:.*]] = loop.alloc {offset = 4096 : i64} : memref<8xf32>
// CHECK-NEXT:    func.call @g(%[[C]], %[[A]], %[[D]], %[[S]])
// CHECK-NEXT:    loop.copy %[[D]], %{{.*}}
// CHECK-NEXT:    func.return

// LLVM:       minitvm.entry = {
// LLVM-SAME:    allocs = array<i64: 2048, 1024, 0, 1024, 3072, 1024, 0, 2048, 4096, 32>,
// LLVM-SAME:    arena_size = 4160 : i64}
func.func @main(%x: memref<256xf32>, %out: memref<512xf32>) {
  %a = loop.alloc : memref<256xf32>
  func.call @f(%x, %a) : (memref<256xf32>, memref<256xf32>) -> ()
  %b = loop.alloc : memref<256xf32>
  func.call @f(%a, %b) : (memref<256xf32>, memref<256xf32>) -> ()
  %c = loop.alloc : memref<256xf32>
  func.call @f(%b, %c) : (memref<256xf32>, memref<256xf32>) -> ()
  %d = loop.alloc : memref<512xf32>
  %s = loop.alloc : memref<8xf32>
  func.call @g(%c, %a, %d, %s) : (memref<256xf32>, memref<256xf32>, memref<512xf32>, memref<8xf32>) -> ()
  loop.copy %d, %out : memref<512xf32>, memref<512xf32>
  func.return
}
