// te-merge-kernels: kernels whose text is the same but for their name become the first of
// them, and @main calls it at every site. A kernel that differs (here in its schedule) stays.
// RUN: minitvm-opt %s -p te-merge-kernels | filecheck %s

// CHECK-LABEL: func.func @relu_0(
// CHECK-NOT:   func.func @relu_1(
// CHECK-LABEL: func.func @relu_2(
// CHECK-SAME:    attributes {te.kernel}
// CHECK-NEXT:    te.compute {{.*}}schedule = [#te.vectorize<"i0">]
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:\w+]]: tensor<16xf32>)
// CHECK-NEXT:    %[[A:\w+]] = func.call @relu_0(%[[X]]) : (tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT:    %[[B:\w+]] = func.call @relu_0(%[[A]]) : (tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT:    %[[C:\w+]] = func.call @relu_2(%[[B]]) : (tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @relu_0(%x: tensor<16xf32>) -> tensor<16xf32> attributes {te.kernel} {
  %y = te.compute (%i) in [16] : tensor<16xf32> {
    %a = te.read %x[%i] : tensor<16xf32>
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    te.yield %r : f32
  }
  func.return %y : tensor<16xf32>
}
func.func @relu_1(%x: tensor<16xf32>) -> tensor<16xf32> attributes {te.kernel} {
  %y = te.compute (%i) in [16] : tensor<16xf32> {
    %a = te.read %x[%i] : tensor<16xf32>
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    te.yield %r : f32
  }
  func.return %y : tensor<16xf32>
}
func.func @relu_2(%x: tensor<16xf32>) -> tensor<16xf32> attributes {te.kernel} {
  %y = te.compute (%i) in [16] {schedule = [#te.vectorize<"i0">]} : tensor<16xf32> {
    %a = te.read %x[%i] : tensor<16xf32>
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    te.yield %r : f32
  }
  func.return %y : tensor<16xf32>
}
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = func.call @relu_0(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %b = func.call @relu_1(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %c = func.call @relu_2(%b) : (tensor<16xf32>) -> tensor<16xf32>
  func.return %c : tensor<16xf32>
}
