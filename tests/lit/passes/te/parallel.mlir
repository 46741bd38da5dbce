// te-parallel: append #te.parallel<axis>; convert-te-to-loop marks that loop {parallel} (and
// then no other: without the primitive, a compute with this much work gets its outermost
// loop marked), and convert-loop-to-llvm outlines it for the threads.
// RUN: minitvm-opt %s -p 'te-parallel{kernel=scale compute=0 axis=i1}' | filecheck %s
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s --check-prefix=BEFORE
// RUN: minitvm-opt %s -p 'te-parallel{kernel=scale compute=0 axis=i1},convert-te-to-loop' | filecheck %s --check-prefix=AFTER

// CHECK-LABEL: func.func @scale(
// CHECK-NEXT:    te.compute (%{{.*}}, %{{.*}}) in [8, 1024] {schedule = [#te.parallel<"i1">]} : tensor<8x1024xf32> {

// BEFORE-LABEL: func.func @scale(
// BEFORE-NEXT:    loop.for %{{.*}} = 0 to 8 step 1 {
// BEFORE-NEXT:      loop.for %{{.*}} = 0 to 1024 step 1 {
// BEFORE:           }
// BEFORE-NEXT:    } {parallel}

// AFTER-LABEL: func.func @scale(
// AFTER-NEXT:    loop.for %{{.*}} = 0 to 8 step 1 {
// AFTER-NEXT:      loop.for %{{.*}} = 0 to 1024 step 1 {
// AFTER:           } {parallel}
// AFTER-NEXT:    }{{$}}
func.func @scale(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> attributes {te.kernel} {
  %y = te.compute (%i, %j) in [8, 1024] : tensor<8x1024xf32> {
    %a = te.read %x[%i, %j] : tensor<8x1024xf32>
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  }
  func.return %y : tensor<8x1024xf32>
}
