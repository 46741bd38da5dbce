// The default parallel loop of a symbolic kernel. A loop of symbolic extent (`batch`, 1 at
// many a run) would leave the other threads idle: a spatial loop inside it of an extent known
// now (12 heads) takes the threads as it is; without one, the symbolic loop is fused with the
// plain spatial loops inside it up to the innermost (`batch` x `seq`, divided back by the
// run-time `seq`), so that every run has work for all threads. A nest whose heads take the
// threads inside the batch also comes with the batch on the threads (whole images per
// thread), picked as it runs: where rounding the batch up to a multiple of the threads
// (`loop.threads`) adds at most an eighth to it (lowering/batch_threads.py).
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s

// CHECK-LABEL: func.func @heads_0(
// CHECK:         %[[B:\w+]] = loop.size "batch"
// CHECK-NEXT:    %[[SEQ:\w+]] = loop.size "seq"
// CHECK-NEXT:    %[[T:\w+]] = loop.threads
// CHECK-NEXT:    %[[UP:\w+]] = arith.addi %[[B]], %[[T]] : index
// CHECK-NEXT:    %[[ONE:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[UP1:\w+]] = arith.subi %[[UP]], %[[ONE]] : index
// CHECK-NEXT:    %[[PER:\w+]] = arith.floordivsi %[[UP1]], %[[T]] : index
// CHECK-NEXT:    %[[ROUNDED:\w+]] = arith.muli %[[PER]], %[[T]] : index
// CHECK-NEXT:    %[[IDLE:\w+]] = arith.subi %[[ROUNDED]], %[[B]] : index
// CHECK-NEXT:    %[[EIGHT:\w+]] = arith.constant 8 : index
// CHECK-NEXT:    %[[IDLE8:\w+]] = arith.muli %[[IDLE]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[IMAGES:\w+]] = arith.cmpi sle, %[[IDLE8]], %[[B]] : index
// CHECK-NEXT:    %[[TRUE:\w+]] = arith.constant true
// CHECK-NEXT:    %[[ROWS:\w+]] = arith.xori %[[IMAGES]], %[[TRUE]] : i1
// CHECK-NEXT:    loop.if %[[IMAGES]] {
// CHECK-NEXT:      loop.for %[[N:\w+]] = 0 to %[[B]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:        loop.for %[[H:\w+]] = 0 to 12 step 1 {
// CHECK-NEXT:          loop.for %[[S:\w+]] = 0 to %[[SEQ]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:            loop.for %[[D:\w+]] = 0 to 64 step 1 {
// CHECK-NEXT:              %{{\w+}} = loop.load %0[%[[N]], %[[H]], %[[S]], %[[D]]]
// CHECK:                 }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      } {parallel}
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.if %[[ROWS]] {
// CHECK-NEXT:      loop.for %[[N:\w+]] = 0 to %[[B]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:        loop.for %[[H:\w+]] = 0 to 12 step 1 {
// CHECK-NEXT:          loop.for %[[S:\w+]] = 0 to %[[SEQ]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:            loop.for %[[D:\w+]] = 0 to 64 step 1 {
// CHECK-NEXT:              %{{\w+}} = loop.load %0[%[[N]], %[[H]], %[[S]], %[[D]]]
// CHECK:                 }
// CHECK-NEXT:          }
// CHECK-NEXT:        } {parallel}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @rows_1(
// CHECK-NOT:     loop.threads
// CHECK:         %[[N:\w+]] = loop.size "batch*seq"
// CHECK-NEXT:    %[[SEQ:\w+]] = loop.size "seq"
// CHECK-NEXT:    loop.for %[[F:\w+]] = 0 to %[[N]] (at most {{\d+}}) step 1 {
// CHECK-NEXT:      %[[B:\w+]] = arith.divui %[[F]], %[[SEQ]] : index
// CHECK-NEXT:      %[[S:\w+]] = arith.remui %[[F]], %[[SEQ]] : index
// CHECK-NEXT:      loop.for %[[D:\w+]] = 0 to 64 step 1 {
// CHECK-NEXT:        %{{\w+}} = loop.load %0[%[[B]], %[[S]], %[[D]]]
// CHECK:         } {parallel}
func.func @heads_0(%0: tensor<?x12x?x64xf32, #graph.dims<"batch", "seq">>) -> tensor<?x12x?x64xf32, #graph.dims<"batch", "seq">> attributes {te.kernel} {
  %1 = te.compute (%i0, %i1, %i2, %i3) in ["batch", 12, "seq", 64] : tensor<?x12x?x64xf32, #graph.dims<"batch", "seq">> {
    %2 = te.read %0[%i0, %i1, %i2, %i3] : tensor<?x12x?x64xf32, #graph.dims<"batch", "seq">>
    %3 = arith.addf %2, %2 : f32
    te.yield %3 : f32
  }
  func.return %1 : tensor<?x12x?x64xf32, #graph.dims<"batch", "seq">>
}
func.func @rows_1(%0: tensor<?x?x64xf32, #graph.dims<"batch", "seq">>) -> tensor<?x?x64xf32, #graph.dims<"batch", "seq">> attributes {te.kernel} {
  %1 = te.compute (%i0, %i1, %i2) in ["batch", "seq", 64] : tensor<?x?x64xf32, #graph.dims<"batch", "seq">> {
    %2 = te.read %0[%i0, %i1, %i2] : tensor<?x?x64xf32, #graph.dims<"batch", "seq">>
    %3 = arith.addf %2, %2 : f32
    te.yield %3 : f32
  }
  func.return %1 : tensor<?x?x64xf32, #graph.dims<"batch", "seq">>
}
