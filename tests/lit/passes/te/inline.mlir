// te-inline: a compute marked #te.inline disappears into the computes that read it.
// RUN: minitvm-opt %s -p te-inline | filecheck %s

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[X:.*]]: tensor<8xf32>)
// CHECK-NEXT:    %[[Q:.*]] = te.compute (%[[I:.*]]) in [8] : tensor<8xf32> {
// CHECK-NEXT:      %[[A:.*]] = te.read %[[X]][%[[I]]] : tensor<8xf32>
// CHECK-NEXT:      %[[B:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK-NEXT:      %[[R:.*]] = math.exp %[[B]] : f32
// CHECK-NEXT:      te.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Q]] : tensor<8xf32>
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> attributes {te.kernel} {
  %p = te.compute (%i) in [8] {schedule = [#te.inline]} : tensor<8xf32> {
    %a = te.read %x[%i] : tensor<8xf32>
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  }
  %q = te.compute (%i) in [8] : tensor<8xf32> {
    %v = te.read %p[%i] : tensor<8xf32>
    %r = math.exp %v : f32
    te.yield %r : f32
  }
  func.return %q : tensor<8xf32>
}

// Reads at other indices get the body at those indices; a kernel result stays materialized
// (without the hint) and is still inlined into its readers.
// CHECK-LABEL: func.func @shifted(
// CHECK-SAME:    %[[X:.*]]: tensor<8xf32>)
// CHECK-NEXT:    %[[P:.*]] = te.compute (%[[I:.*]]) in [7] {schedule = []} : tensor<7xf32> {
// CHECK:         %[[Q:.*]] = te.compute (%[[J:.*]]) in [6] : tensor<6xf32> {
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[J1:.*]] = arith.addi %[[J]], %[[ONE]] : index
// CHECK-NEXT:      %[[A:.*]] = te.read %[[X]][%[[J1]]] : tensor<8xf32>
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[A]] : f32
// CHECK-NEXT:      te.yield %[[N]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[P]], %[[Q]] : tensor<7xf32>, tensor<6xf32>
func.func @shifted(%x: tensor<8xf32>) -> (tensor<7xf32>, tensor<6xf32>) attributes {te.kernel} {
  %p = te.compute (%i) in [7] {schedule = [#te.inline]} : tensor<7xf32> {
    %a = te.read %x[%i] : tensor<8xf32>
    %n = arith.negf %a : f32
    te.yield %n : f32
  }
  %q = te.compute (%j) in [6] : tensor<6xf32> {
    %one = arith.constant 1 : index
    %j1 = arith.addi %j, %one : index
    %v = te.read %p[%j1] : tensor<7xf32>
    te.yield %v : f32
  }
  func.return %p, %q : tensor<7xf32>, tensor<6xf32>
}
