// te-mark-inline: append #te.inline to a compute; te-inline (or convert-te-to-loop, which
// runs it first) then substitutes its body into every read of it: no buffer, no loop nest.
// RUN: minitvm-opt %s -p 'te-mark-inline{kernel=chain compute=0}' | filecheck %s
// RUN: minitvm-opt %s -p 'te-mark-inline{kernel=chain compute=0},te-inline' | filecheck %s --check-prefix=INLINED
// RUN: not minitvm-opt %s -p 'te-mark-inline{kernel=row_sum compute=total}' 2>&1 | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    te.compute (%{{.*}}) in [8] {schedule = [#te.inline]} : tensor<8xf32> {
// CHECK:         te.compute (%{{.*}}) in [8] : tensor<8xf32> {

// INLINED-LABEL: func.func @chain(
// INLINED-SAME:    %[[X:.*]]: tensor<8xf32>)
// INLINED-NEXT:    %[[Q:.*]] = te.compute (%[[I:.*]]) in [8] : tensor<8xf32> {
// INLINED-NEXT:      %[[A:.*]] = te.read %[[X]][%[[I]]] : tensor<8xf32>
// INLINED-NEXT:      %[[B:.*]] = arith.addf %[[A]], %[[A]] : f32
// INLINED-NEXT:      %[[R:.*]] = math.exp %[[B]] : f32
// INLINED-NEXT:      te.yield %[[R]] : f32
// INLINED-NEXT:    }
// INLINED-NEXT:    func.return %[[Q]] : tensor<8xf32>

// ERR: error: @row_sum compute 0 ("total"): schedule: cannot inline the reduction 'total'
// ERR-NEXT: note: raised by pass 'te-mark-inline'
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> attributes {te.kernel} {
  %p = te.compute (%i) in [8] : tensor<8xf32> {
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

func.func @row_sum(%x: tensor<4x8xf32>) -> tensor<4xf32> attributes {te.kernel} {
  %s = te.compute "total" (%i) in [4] sum (%r) in [8] : tensor<4xf32> {
    %a = te.read %x[%i, %r] : tensor<4x8xf32>
    te.yield %a : f32
  }
  func.return %s : tensor<4xf32>
}
