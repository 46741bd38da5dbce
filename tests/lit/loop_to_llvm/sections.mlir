// loop.sections lowers to one parallel loop over groups of sections, its trip count picked as
// the code runs: 2 sections on 2 threads (the threads divide them) make 2 groups of one, each
// on a thread; on 1 thread, or 3, one group of both, on the calling thread (its kernels then
// take all the threads). The outlined body runs section s where s == g * per + j.
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s

// CHECK-LABEL: llvm.func @main(
// CHECK-DAG:     %[[TWO:\d+]] = llvm.mlir.constant(2) : i64
// CHECK-DAG:     %[[ONE:\d+]] = llvm.mlir.constant(1) : i64
// CHECK-DAG:     %[[ZERO:\d+]] = llvm.mlir.constant(0) : i64
// CHECK-DAG:     %[[BODY:\d+]] = llvm.mlir.addressof @main__par0_chunk : !llvm.ptr
// CHECK:         %[[T:\d+]] = llvm.call @__minitvm_threads() : () -> i64
// CHECK-NEXT:    %[[SEVERAL:\d+]] = llvm.icmp "sge" %[[T]], %[[TWO]] : i64
// CHECK-NEXT:    %[[REM:\d+]] = llvm.urem %[[TWO]], %[[T]] : i64
// CHECK-NEXT:    %[[DIVIDES:\d+]] = llvm.icmp "eq" %[[REM]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[SIDE:\d+]] = llvm.and %[[SEVERAL]], %[[DIVIDES]] : i1
// CHECK-NEXT:    %[[GROUPS:\d+]] = llvm.select %[[SIDE]], %[[TWO]], %[[ONE]] : i1, i64
// CHECK-NEXT:    %[[PER:\d+]] = llvm.udiv %[[TWO]], %[[GROUPS]] : i64
// CHECK:         llvm.call @__minitvm_parallel_for(%[[BODY]], %{{\d+}}, %{{\d+}})
// CHECK-NEXT:    llvm.return

// CHECK-LABEL: llvm.func @main__par0(
// CHECK-SAME:    %[[P:\d+]]: i64, %[[X:\d+]]: !llvm.ptr, %[[Y:\d+]]: !llvm.ptr, %[[Z:\d+]]: !llvm.ptr, %{{\d+}}: i64, %{{\d+}}: i64)
// CHECK:         %[[BASE:\d+]] = llvm.mul %{{\d+}}, %[[P]]
// CHECK:         %[[S:\d+]] = llvm.add %[[BASE]], %{{\d+}}
// CHECK-NEXT:    %[[IS0:\d+]] = llvm.icmp "eq" %[[S]], %{{\d+}} : i64
// CHECK-NEXT:    llvm.cond_br %[[IS0]], ^[[THEN0:\w+]], ^{{\w+}}
// CHECK-NEXT:  ^[[THEN0]]:
// CHECK-NEXT:    llvm.call @k(%[[X]], %[[Y]])
// CHECK:         llvm.icmp "eq" %[[S]], %{{\d+}} : i64
// CHECK-NEXT:    llvm.cond_br
// CHECK-NEXT:  ^{{\w+}}:
// CHECK-NEXT:    llvm.call @k(%[[X]], %[[Z]])
func.func @k(%a: memref<16xf32>, %b: memref<16xf32>) attributes {loop.kernel} {
  func.return
}
func.func @main(%x: memref<16xf32>, %y: memref<16xf32>, %z: memref<16xf32>) {
  loop.sections {
    func.call @k(%x, %y) : (memref<16xf32>, memref<16xf32>) -> ()
  } {
    func.call @k(%x, %z) : (memref<16xf32>, memref<16xf32>) -> ()
  }
  func.return
}
