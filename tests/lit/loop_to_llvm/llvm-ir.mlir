// minitvm-opt -t llvm prints the LLVM IR of the llvm-dialect module (our extra ops included)
// for the host target: block arguments are phis, accesses getelementptr inbounds; every
// function aligns its frame to a cache line (alignstack(64): vector spills never straddle two).
// RUN: minitvm-opt %s -p convert-loop-to-llvm -t llvm | filecheck %s

// CHECK:       target triple = "{{.*}}"
// CHECK:       target datalayout = "{{.*}}"

// CHECK-LABEL: define void @"scale"(ptr noalias %{{.*}}, ptr noalias %{{.*}}, ptr noalias %{{.*}}) nounwind alignstack(64)
// CHECK:       loop:
// CHECK-NEXT:    %[[I:.*]] = phi i64 [0, %{{.*}}], [%[[NEXT:.*]], %{{.*}}]
// CHECK-NEXT:    %[[MORE:.*]] = icmp slt i64 %[[I]], 64
// CHECK-NEXT:    br i1 %[[MORE]], label %"body", label %"done"
// CHECK:       body:
// CHECK-NEXT:    %[[P:.*]] = getelementptr inbounds float, ptr %{{.*}}, i64 %[[I]]
// CHECK-NEXT:    %[[V:.*]] = load <16 x float>, ptr %[[P]], align 4
// CHECK-NEXT:    %[[E:.*]] = call <16 x float> @"llvm.sqrt.v16f32"(<16 x float> %[[V]])
// CHECK-NEXT:    %[[Q:.*]] = getelementptr inbounds float, ptr %{{.*}}, i64 %[[I]]
// CHECK-NEXT:    store <16 x float> %[[E]], ptr %[[Q]], align 4
// CHECK-NEXT:    %[[NEXT]] = add nsw i64 %[[I]], 16
// CHECK-NEXT:    br label %"loop"
// CHECK:       done:
// CHECK-NEXT:    %[[S:.*]] = load float, ptr %{{.*}}, align 4
// CHECK-NEXT:    %[[N:.*]] = fptosi float %[[S]] to i64
// CHECK-NEXT:    store i64 %[[N]], ptr %{{.*}}, align 8
// CHECK-NEXT:    ret void
func.func @scale(%x: memref<64xf32>, %out: memref<64xf32>, %first: memref<i64>) {
  loop.for %i = 0 to 64 step 16 {
    %v = loop.vload %x[%i] : memref<64xf32> -> vector<16xf32>
    %e = math.sqrt %v : vector<16xf32>
    loop.vstore %e, %out[%i] : vector<16xf32>, memref<64xf32>
  }
  %c0 = arith.constant 0 : index
  %s = loop.load %x[%c0] : memref<64xf32> -> f32
  %n = arith.fptosi %s : f32 to i64
  loop.store %n, %first[] : i64, memref<i64>
  func.return
}
