// loop-plan-memory through loop.view: a view's readers read its buffer's bytes, so the buffer
// stays live until the last of them, and no buffer written meanwhile may take its bytes.
// convert-loop-to-llvm then makes each view a byte offset from its buffer's pointer.
// RUN: minitvm-opt %s -p loop-plan-memory | filecheck %s
// RUN: minitvm-opt %s -p loop-plan-memory,convert-loop-to-llvm | filecheck %s --check-prefix=LLVM

func.func @f(%a: memref<256xf32>, %b: memref<256xf32>) {
  func.return
}
func.func @g(%a: memref<2x128xf32>, %b: memref<1x128xf32>, %c: memref<256xf32>) {
  func.return
}

// %a is live from its write (1) through the call reading its views (5), not just to the
// views themselves (2, 3): %b, written at 5, gets other bytes (1024); %c, written once %a
// is dead, takes %a's (0).
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[A:.*]] = loop.alloc {offset = 0 : i64} : memref<256xf32>
// CHECK-NEXT:    func.call @f(%{{.*}}, %[[A]])
// CHECK-NEXT:    %[[R:.*]] = loop.view %[[A]][0] : memref<256xf32> to memref<2x128xf32>
// CHECK-NEXT:    %[[H:.*]] = loop.view %[[A]][128] : memref<256xf32> to memref<1x128xf32>
// CHECK-NEXT:    %[[B:.*]] = loop.alloc {offset = 1024 : i64} : memref<256xf32>
// CHECK-NEXT:    func.call @g(%[[R]], %[[H]], %[[B]])
// CHECK-NEXT:    %[[C:.*]] = loop.alloc {offset = 0 : i64} : memref<256xf32>
// CHECK-NEXT:    func.call @f(%[[B]], %[[C]])

// The second half of %a is %a's pointer plus 512 bytes; the reshape is %a's pointer itself.
// LLVM-LABEL: llvm.func @main(
// LLVM:         llvm.call @f(%{{.*}}, %[[A:[^)]*]])
// LLVM-NEXT:    %[[H:.*]] = llvm.getelementptr inbounds %[[A]][512] : (!llvm.ptr) -> !llvm.ptr, i8
// LLVM-NEXT:    llvm.call @g(%[[A]], %[[H]], %{{.*}})
func.func @main(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = loop.alloc : memref<256xf32>
  func.call @f(%x, %a) : (memref<256xf32>, memref<256xf32>) -> ()
  %r = loop.view %a[0] : memref<256xf32> to memref<2x128xf32>
  %h = loop.view %a[128] : memref<256xf32> to memref<1x128xf32>
  %b = loop.alloc : memref<256xf32>
  func.call @g(%r, %h, %b) : (memref<2x128xf32>, memref<1x128xf32>, memref<256xf32>) -> ()
  %c = loop.alloc : memref<256xf32>
  func.call @f(%b, %c) : (memref<256xf32>, memref<256xf32>) -> ()
  loop.copy %c, %out : memref<256xf32>, memref<256xf32>
  func.return
}
