// convert-loop-to-llvm on `parallel` loops: the loop becomes a call of
// __minitvm_parallel_for(chunk, ctx, trip count), where @<fn>__par<n>_chunk(ctx, lo, hi)
// unpacks the values the body uses from outside (stored in ctx, 8-byte aligned slots) and
// calls @<fn>__par<n>(values..., lo, hi), which runs iterations [lo, hi) with the buffers
// still noalias. Constants are re-created inside, not passed; a parallel loop inside the
// outlined one, one of a single iteration and one carrying values stay serial loops.
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s

// CHECK-LABEL: llvm.func @scale(
// CHECK-SAME:    %[[A:.*]]: !llvm.ptr {llvm.noalias}, %[[OUT:.*]]: !llvm.ptr {llvm.noalias}, %[[S:.*]]: f32) {
// CHECK:         %[[TRIP:.*]] = llvm.mlir.constant(3) : i64
// CHECK-NEXT:    %[[CTX:.*]] = llvm.alloca %[[TRIP]] x !llvm.ptr {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[SLOT1:.*]] = llvm.getelementptr inbounds %[[CTX]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[SLOT2:.*]] = llvm.getelementptr inbounds %[[CTX]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[CHUNK:.*]] = llvm.mlir.addressof @scale__par0_chunk : !llvm.ptr
// CHECK-NEXT:    llvm.br ^[[BEGIN:.*]]
// CHECK-NEXT:  ^[[BEGIN]]:
// CHECK-NEXT:    llvm.store %[[A]], %[[CTX]] {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[S]], %[[SLOT1]] {alignment = 8 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[OUT]], %[[SLOT2]] {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.call @__minitvm_parallel_for(%[[CHUNK]], %[[CTX]], %[[TRIP]]) : (!llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK-NEXT:    llvm.return
func.func @scale(%a: memref<7x33xf32>, %out: memref<7x33xf32>, %s: f32) {
  %two = arith.constant 2.0 : f32
  loop.for %i = 1 to 7 step 2 {
    loop.for %j = 0 to 33 step 1 {
      %x = loop.load %a[%i, %j] : memref<7x33xf32> -> f32
      %y = arith.mulf %x, %two : f32
      %z = arith.addf %y, %s : f32
      loop.store %z, %out[%i, %j] : f32, memref<7x33xf32>
    } {parallel}
  } {parallel}
  func.return
}

// CHECK-LABEL: llvm.func @serial(
// CHECK-NOT:     __minitvm_parallel_for
// CHECK:         llvm.return
func.func @serial(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  loop.for %i = 0 to 1 step 1 {
    loop.store %zero, %a[%i] : f32, memref<4xf32>
  } {parallel}
  %r = loop.for %i = 0 to 4 step 1 iter_args(%acc = %zero) -> (f32) {
    %x = loop.load %a[%i] : memref<4xf32> -> f32
    %s = arith.addf %acc, %x : f32
    loop.yield %s : f32
  } {parallel}
  func.return
}

// The index of a one-iteration loop is a known constant: re-created inside, not passed.
// CHECK-LABEL: llvm.func @batch(
// CHECK:         llvm.call @__minitvm_parallel_for(
func.func @batch(%a: memref<1x4xf32>) {
  %one = arith.constant 1.0 : f32
  loop.for %b = 0 to 1 step 1 {
    loop.for %i = 0 to 4 step 1 {
      loop.store %one, %a[%b, %i] : f32, memref<1x4xf32>
    } {parallel}
  }
  func.return
}

// Iterations [lo, hi) of `1 to 7 step 2`: %i from 1 + 2 lo while below 1 + 2 hi.
// CHECK-LABEL: llvm.func @scale__par0(
// CHECK-SAME:    %[[A2:.*]]: !llvm.ptr {llvm.noalias}, %[[S2:.*]]: f32, %[[OUT2:.*]]: !llvm.ptr {llvm.noalias}, %[[LO:.*]]: i64, %[[HI:.*]]: i64) {
// CHECK-NEXT:    %[[TWO:.*]] = llvm.mlir.constant(2.000000e+00 : f32) : f32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[STEP:.*]] = llvm.mlir.constant(2) : i64
// CHECK:       ^{{.*}}:
// CHECK-NEXT:    %[[LO2:.*]] = llvm.mul %[[LO]], %[[STEP]] overflow<nsw> : i64
// CHECK-NEXT:    %[[FIRST:.*]] = llvm.add %[[ONE]], %[[LO2]] overflow<nsw> : i64
// CHECK-NEXT:    %[[HI2:.*]] = llvm.mul %[[HI]], %[[STEP]] overflow<nsw> : i64
// CHECK-NEXT:    %[[END:.*]] = llvm.add %[[ONE]], %[[HI2]] overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^[[LOOP:.*]](%[[FIRST]] : i64)
// CHECK-NEXT:  ^[[LOOP]](%[[I:.*]]: i64):
// CHECK-NEXT:    %[[MORE:.*]] = llvm.icmp "slt" %[[I]], %[[END]] : i64
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^{{.*}}, ^{{.*}}
// The inner parallel loop is a plain loop here.
// CHECK-NOT:     __minitvm_parallel_for
// CHECK:         %[[X:.*]] = llvm.load
// CHECK-NEXT:    %[[Y:.*]] = llvm.fmul %[[X]], %[[TWO]] : f32
// CHECK-NEXT:    llvm.fadd %[[Y]], %[[S2]] : f32
// CHECK:         llvm.add %[[I]], %[[STEP]] overflow<nsw> : i64

// CHECK-LABEL: llvm.func @scale__par0_chunk(
// CHECK-SAME:    %[[C:.*]]: !llvm.ptr, %[[CLO:.*]]: i64, %[[CHI:.*]]: i64) {
// CHECK-NEXT:    %[[C1:.*]] = llvm.getelementptr inbounds %[[C]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[C2:.*]] = llvm.getelementptr inbounds %[[C]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.br ^[[B:.*]]
// CHECK-NEXT:  ^[[B]]:
// CHECK-NEXT:    %[[VA:.*]] = llvm.load %[[C]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[VS:.*]] = llvm.load %[[C1]] {alignment = 8 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[VOUT:.*]] = llvm.load %[[C2]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.call @scale__par0(%[[VA]], %[[VS]], %[[VOUT]], %[[CLO]], %[[CHI]]) : (!llvm.ptr, f32, !llvm.ptr, i64, i64) -> ()
// CHECK-NEXT:    llvm.return

// CHECK-LABEL: llvm.func @batch__par1(
// CHECK-SAME:    %[[BA:.*]]: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64) {
// CHECK:         llvm.getelementptr inbounds %[[BA]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32

// CHECK:       llvm.func @__minitvm_parallel_for(!llvm.ptr, !llvm.ptr, i64)
