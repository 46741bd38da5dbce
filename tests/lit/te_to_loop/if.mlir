// convert-te-to-loop on a graph.if in @main: the condition is loaded from its buffer, each
// branch becomes a loop.if (the else one on the negated condition) running its calls and
// copying what it yields into the result's buffer, which is the model's output buffer when
// @main returns the result; every buffer is allocated at the top of @main (loop-plan-memory
// plans those).
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s

func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {
  %s = te.compute (%i) in [4] : tensor<4xf32> {
    %x = te.read %a[%i] : tensor<4xf32>
    %z = arith.addf %x, %x : f32
    te.yield %z : f32
  }
  func.return %s : tensor<4xf32>
}

// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[C:\w+]]: memref<i1>, %[[X:\w+]]: memref<4xf32>, %[[OUT:\w+]]: memref<4xf32>) {
// CHECK-NEXT:    %[[COND:\w+]] = loop.load %[[C]][] : memref<i1> -> i1
// CHECK-NEXT:    %[[TRUE:\w+]] = arith.constant true
// CHECK-NEXT:    %[[NOT:\w+]] = arith.xori %[[COND]], %[[TRUE]] : i1
// CHECK-NEXT:    %[[T:\w+]] = loop.alloc : memref<4xf32>
// CHECK-NEXT:    %[[U:\w+]] = loop.alloc : memref<4xf32>
// CHECK-NEXT:    loop.if %[[COND]] {
// CHECK-NEXT:      func.call @k(%[[X]], %[[T]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:      func.call @k(%[[T]], %[[U]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:      loop.copy %[[U]], %[[OUT]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.if %[[NOT]] {
// CHECK-NEXT:      loop.copy %[[X]], %[[OUT]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.if %c : tensor<i1> -> (tensor<4xf32>) {
    %0 = func.call @k(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = func.call @k(%0) : (tensor<4xf32>) -> tensor<4xf32>
    graph.yield %1 : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
