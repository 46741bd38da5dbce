// Every loop op written in the generic form, printed back in the generic form: loop.for's
// bounds are i64 properties, its body's block arguments (index, then the carried values) and
// its loop.yield are spelled out, as is loop.if's empty loop.yield; loop.constant's value is a
// property. The second run checks that the generic output parses back to the same generic
// text; the third that the generic form reaches the custom printer intact.
//
// RUN: minitvm-opt %s --print-op-generic | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt --print-op-generic | filecheck %s
// RUN: minitvm-opt %s | filecheck %s --check-prefix=CUSTOM

// CHECK: "builtin.module"() ({

// CHECK-LABEL: "func.func"() <{sym_name = "kernel", function_type = (memref<8x16xf32>, memref<8xi64>, memref<8xi1>) -> ()}> ({
// CHECK-NEXT:  ^bb0(%[[A:\w+]]: memref<8x16xf32>, %[[IDS:\w+]]: memref<8xi64>, %[[MASK:\w+]]: memref<8xi1>):
// CUSTOM-LABEL: func.func @kernel(
"func.func"() <{sym_name = "kernel", function_type = (memref<8x16xf32>, memref<8xi64>, memref<8xi1>) -> ()}> ({
^bb0(%A: memref<8x16xf32>, %ids: memref<8xi64>, %mask: memref<8xi1>):
  // CHECK-NEXT: %[[ZERO:\w+]] = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
  // CHECK-NEXT: %[[T:\w+]] = "loop.alloc"() : () -> memref<8xf32>
  // CHECK-NEXT: %[[W:\w+]] = "loop.constant"() <{value = #graph.splat<2.000000e+00 : f32>}> : () -> memref<16xf32>
  // CHECK-NEXT: %[[D:\w+]] = "loop.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> memref<2xi64>
  // CHECK-NEXT: %[[B:\w+]] = "loop.constant"() <{value = #graph.weights<w_3f0e6a1d2c4b>}> {name = "w"} : () -> memref<2xf32>
  // CUSTOM:      loop.alloc : memref<8xf32>
  // CUSTOM-NEXT: loop.constant #graph.splat<2.000000e+00 : f32> : memref<16xf32>
  // CUSTOM-NEXT: loop.constant dense<[1, 2]> : tensor<2xi64> : memref<2xi64>
  // CUSTOM-NEXT: loop.constant #graph.weights<w_3f0e6a1d2c4b> {name = "w"} : memref<2xf32>
  %zero = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
  %t = "loop.alloc"() : () -> memref<8xf32>
  %w = "loop.constant"() <{value = #graph.splat<2.000000e+00 : f32>}> : () -> memref<16xf32>
  %d = "loop.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> memref<2xi64>
  %b = "loop.constant"() <{value = #graph.weights<w_3f0e6a1d2c4b>}> {name = "w"} : () -> memref<2xf32>
  // CHECK-NEXT: "loop.for"() <{lower = 0 : i64, upper = 8 : i64, step = 1 : i64}> ({
  // CHECK-NEXT: ^bb0(%[[I:\w+]]: index):
  // CHECK-NEXT:   %[[S:\w+]] = "loop.for"(%[[ZERO]]) <{lower = 0 : i64, upper = 16 : i64, step = 16 : i64}> ({
  // CHECK-NEXT:   ^bb0(%[[J:\w+]]: index, %[[ACC:\w+]]: f32):
  // CHECK-NEXT:     %[[V:\w+]] = "loop.vload"(%[[A]], %[[I]], %[[J]]) : (memref<8x16xf32>, index, index) -> vector<16xf32>
  // CHECK-NEXT:     %[[WV:\w+]] = "loop.vload"(%[[W]], %[[J]]) : (memref<16xf32>, index) -> vector<16xf32>
  // CHECK-NEXT:     %[[BC:\w+]] = "loop.broadcast"(%[[ACC]]) : (f32) -> vector<16xf32>
  // CHECK-NEXT:     %[[P:\w+]] = "math.fma"(%[[V]], %[[WV]], %[[BC]]) <{fastmath = #arith.fastmath<none>}> : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
  // CHECK-NEXT:     "loop.vstore"(%[[P]], %[[A]], %[[I]], %[[J]]) : (vector<16xf32>, memref<8x16xf32>, index, index) -> ()
  // CHECK-NEXT:     "loop.yield"(%[[ACC]]) : (f32) -> ()
  // CHECK-NEXT:   }) {vectorize} : (f32) -> f32
  // CHECK-NEXT:   "loop.store"(%[[S]], %[[T]], %[[I]]) : (f32, memref<8xf32>, index) -> ()
  // CHECK-NEXT:   %[[BIT:\w+]] = "loop.load"(%[[MASK]], %[[I]]) : (memref<8xi1>, index) -> i1
  // CHECK-NEXT:   "loop.if"(%[[BIT]]) ({
  // CHECK-NEXT:     %[[ID:\w+]] = "loop.load"(%[[IDS]], %[[I]]) : (memref<8xi64>, index) -> i64
  // CHECK-NEXT:     "loop.store"(%[[ID]], %[[IDS]], %[[I]]) : (i64, memref<8xi64>, index) -> ()
  // CHECK-NEXT:     "loop.yield"() : () -> ()
  // CHECK-NEXT:   }) {likely} : (i1) -> ()
  // CHECK-NEXT:   "loop.yield"() : () -> ()
  // CHECK-NEXT: }) {parallel} : () -> ()
  // CUSTOM-NEXT: loop.for %[[CI:\w+]] = 0 to 8 step 1 {
  // CUSTOM-NEXT:   %{{\w+}} = loop.for %{{\w+}} = 0 to 16 step 16 iter_args(%[[CACC:\w+]] = %{{\w+}}) -> (f32) {
  // CUSTOM:          loop.yield %[[CACC]] : f32
  // CUSTOM-NEXT:   } {vectorize}
  // CUSTOM:        loop.if %{{\w+}} {
  // CUSTOM:        } {likely}
  // CUSTOM-NEXT: } {parallel}
  "loop.for"() <{lower = 0 : i64, upper = 8 : i64, step = 1 : i64}> ({
  ^bb0(%i: index):
    %s = "loop.for"(%zero) <{lower = 0 : i64, upper = 16 : i64, step = 16 : i64}> ({
    ^bb1(%j: index, %acc: f32):
      %v = "loop.vload"(%A, %i, %j) : (memref<8x16xf32>, index, index) -> vector<16xf32>
      %wv = "loop.vload"(%w, %j) : (memref<16xf32>, index) -> vector<16xf32>
      %bc = "loop.broadcast"(%acc) : (f32) -> vector<16xf32>
      %p = "math.fma"(%v, %wv, %bc) <{fastmath = #arith.fastmath<none>}> : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
      "loop.vstore"(%p, %A, %i, %j) : (vector<16xf32>, memref<8x16xf32>, index, index) -> ()
      "loop.yield"(%acc) : (f32) -> ()
    }) {vectorize} : (f32) -> f32
    "loop.store"(%s, %t, %i) : (f32, memref<8xf32>, index) -> ()
    %bit = "loop.load"(%mask, %i) : (memref<8xi1>, index) -> i1
    "loop.if"(%bit) ({
      %id = "loop.load"(%ids, %i) : (memref<8xi64>, index) -> i64
      "loop.store"(%id, %ids, %i) : (i64, memref<8xi64>, index) -> ()
      "loop.yield"() : () -> ()
    }) {likely} : (i1) -> ()
    "loop.yield"() : () -> ()
  }) {parallel} : () -> ()
  // CHECK-NEXT: "loop.copy"(%[[B]], %[[B]]) : (memref<2xf32>, memref<2xf32>) -> ()
  // CHECK-NEXT: "func.return"() : () -> ()
  // CHECK-NEXT: }) {loop.kernel} : () -> ()
  // CUSTOM-NEXT: loop.copy %{{\w+}}, %{{\w+}} : memref<2xf32>, memref<2xf32>
  // CUSTOM-NEXT: func.return
  "loop.copy"(%b, %b) : (memref<2xf32>, memref<2xf32>) -> ()
  "func.return"() : () -> ()
}) {loop.kernel} : () -> ()

// CHECK-NEXT: }) : () -> ()
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     graph: {
// CHECK-NEXT:       w_3f0e6a1d2c4b: "0x080000000000803f00000040"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
{-#
  dialect_resources: {
    graph: {
      w_3f0e6a1d2c4b: "0x080000000000803f00000040"
    }
  }
#-}
