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

// graph.loop: the state in buffers (iteration number, condition, loop-carried values in the
// results' buffers, the flag i < trip and cond), a loop.while over the body's calls, the
// yields copied back (through a temporary where a yield is another loop-carried value).
// CHECK-LABEL: func.func @swap_loop(
// CHECK-SAME:    %[[M:\w+]]: memref<i64>, %[[C:\w+]]: memref<i1>, %[[X:\w+]]: memref<4xf32>, %[[OUTA:\w+]]: memref<4xf32>, %[[OUTB:\w+]]: memref<4xf32>) {
// CHECK-NEXT:    %[[I:\w+]] = loop.alloc : memref<i64>
// CHECK-NEXT:    %[[CI:\w+]] = loop.alloc : memref<i1>
// CHECK-NEXT:    %[[FLAG:\w+]] = loop.alloc : memref<i1>
// CHECK-NEXT:    loop.copy %[[X]], %[[OUTA]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    loop.copy %[[X]], %[[OUTB]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    %[[TRIP:\w+]] = loop.load %[[M]][] : memref<i64> -> i64
// CHECK-NEXT:    %[[ZERO:\w+]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[C0:\w+]] = loop.load %[[C]][] : memref<i1> -> i1
// CHECK-NEXT:    %[[BELOW:\w+]] = arith.cmpi slt, %[[ZERO]], %[[TRIP]] : i64
// CHECK-NEXT:    %[[GO:\w+]] = arith.andi %[[BELOW]], %[[C0]] : i1
// CHECK-NEXT:    loop.store %[[ZERO]], %[[I]][] : i64, memref<i64>
// CHECK-NEXT:    loop.store %[[C0]], %[[CI]][] : i1, memref<i1>
// CHECK-NEXT:    loop.store %[[GO]], %[[FLAG]][] : i1, memref<i1>
// CHECK-NEXT:    %[[SUM:\w+]] = loop.alloc : memref<4xf32>
// CHECK-NEXT:    %[[TMP:\w+]] = loop.alloc : memref<4xf32>
// CHECK-NEXT:    loop.while %[[FLAG]] : memref<i1> {
// CHECK-NEXT:      func.call @k2(%[[OUTA]], %[[OUTB]], %[[SUM]]) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:      loop.copy %[[OUTA]], %[[TMP]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:      loop.copy %[[SUM]], %[[OUTA]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:      loop.copy %[[TMP]], %[[OUTB]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:      %[[NEXT:\w+]] = loop.load %[[CI]][] : memref<i1> -> i1
// CHECK-NEXT:      %[[OLD:\w+]] = loop.load %[[I]][] : memref<i64> -> i64
// CHECK-NEXT:      %[[ONE:\w+]] = arith.constant 1 : i64
// CHECK-NEXT:      %[[STEP:\w+]] = arith.addi %[[OLD]], %[[ONE]] : i64
// CHECK-NEXT:      %[[B2:\w+]] = arith.cmpi slt, %[[STEP]], %[[TRIP]] : i64
// CHECK-NEXT:      %[[G2:\w+]] = arith.andi %[[B2]], %[[NEXT]] : i1
// CHECK-NEXT:      loop.store %[[STEP]], %[[I]][] : i64, memref<i64>
// CHECK-NEXT:      loop.store %[[NEXT]], %[[CI]][] : i1, memref<i1>
// CHECK-NEXT:      loop.store %[[G2]], %[[FLAG]][] : i1, memref<i1>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @k2(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {
  %s = te.compute (%i) in [4] : tensor<4xf32> {
    %x = te.read %a[%i] : tensor<4xf32>
    %y = te.read %b[%i] : tensor<4xf32>
    %z = arith.addf %x, %y : f32
    te.yield %z : f32
  }
  func.return %s : tensor<4xf32>
}
func.func @swap_loop(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a, %b = graph.loop %m, %c, %x, %x : (tensor<i64>, tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %u: tensor<4xf32>, %v: tensor<4xf32>):
    %s = func.call @k2(%u, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    graph.yield %ci, %s, %u : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  }
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}
