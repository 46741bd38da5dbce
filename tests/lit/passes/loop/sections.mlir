// loop-sections: @main's independent chains of calls that call the same kernels (the two
// directions of a bidirectional RNN) run side by side, each a section of a loop.sections.
// A call that depends on two chains is a stage of its own; chains of different kernels stay
// in the block; views go into the one section that uses them.
// RUN: minitvm-opt %s -p loop-sections | filecheck %s
// RUN: minitvm-opt %s -p loop-sections,loop-plan-memory | filecheck %s --check-prefix=PLAN
// RUN: minitvm-opt %s -p loop-sections{function=opaque} | filecheck %s --check-prefix=OPAQUE
// RUN: minitvm-opt %s -p loop-sections{function=sized} | filecheck %s --check-prefix=SIZED

// A projection, a step (stores into its last buffer), and a sum declared without a body:
// its first two buffers are only read (loop.inputs), as kernel_build.py declares kernels.
func.func @proj(%x: memref<64xf32>, %y: memref<64xf32>) attributes {loop.kernel} {
  %i = arith.constant 0 : index
  %v = loop.load %x[%i] : memref<64xf32> -> f32
  loop.store %v, %y[%i] : f32, memref<64xf32>
  func.return
}
func.func @step(%p: memref<16xf32>, %h: memref<16xf32>, %o: memref<16xf32>) attributes {loop.kernel} {
  %i = arith.constant 0 : index
  %v = loop.load %p[%i] : memref<16xf32> -> f32
  loop.store %v, %o[%i] : f32, memref<16xf32>
  func.return
}
func.func @scale(%x: memref<?xf32, #graph.dims<"n">>, %y: memref<?xf32, #graph.dims<"n">>, %n: index) attributes {loop.kernel, loop.symbols = ["n"]} {
  %i = arith.constant 0 : index
  %v = loop.load %x[%i] : memref<?xf32, #graph.dims<"n">> -> f32
  loop.store %v, %y[%i] : f32, memref<?xf32, #graph.dims<"n">>
  func.return
}
func.func private @add(memref<16xf32>, memref<16xf32>, memref<16xf32>) attributes {loop.inputs = 2 : i64}
func.func private @unknown(memref<64xf32>, memref<64xf32>)

// Stage 1: two chains (proj, step, step) over their own buffers, both reading %x, writing
// rows of the output %y (disjoint bytes). %x's view is read by both: it stays in the block.
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[XV:\w+]] = loop.view %x[0] : memref<64xf32> to memref<64xf32>
// CHECK-NEXT:    %[[PF:\w+]] = loop.alloc : memref<64xf32>
// CHECK-NEXT:    %[[PB:\w+]] = loop.alloc : memref<64xf32>
// CHECK-NEXT:    %[[HF:\w+]] = loop.alloc : memref<16xf32>
// CHECK-NEXT:    %[[HB:\w+]] = loop.alloc : memref<16xf32>
// CHECK-NEXT:    loop.sections {
// CHECK-NEXT:      func.call @proj(%[[XV]], %[[PF]])
// CHECK-NEXT:      %[[F0:\w+]] = loop.view %[[PF]][0] : memref<64xf32> to memref<16xf32>
// CHECK-NEXT:      func.call @step(%[[F0]], %h0, %[[HF]])
// CHECK-NEXT:      %[[F1:\w+]] = loop.view %[[PF]][16] : memref<64xf32> to memref<16xf32>
// CHECK-NEXT:      %[[YF:\w+]] = loop.view %y[0] : memref<32xf32> to memref<16xf32>
// CHECK-NEXT:      func.call @step(%[[F1]], %[[HF]], %[[YF]])
// CHECK-NEXT:    } {
// CHECK-NEXT:      func.call @proj(%[[XV]], %[[PB]])
// CHECK-NEXT:      %[[B0:\w+]] = loop.view %[[PB]][0] : memref<64xf32> to memref<16xf32>
// CHECK-NEXT:      func.call @step(%[[B0]], %h0, %[[HB]])
// CHECK-NEXT:      %[[B1:\w+]] = loop.view %[[PB]][16] : memref<64xf32> to memref<16xf32>
// CHECK-NEXT:      %[[YB:\w+]] = loop.view %y[16] : memref<32xf32> to memref<16xf32>
// CHECK-NEXT:      func.call @step(%[[B1]], %[[HB]], %[[YB]])
// CHECK-NEXT:    }
// The sum joins the chains: a stage of its own. After it, a chain of proj and one of add:
// not the same kernels, so they stay as they are. The copy is a barrier.
// CHECK-NEXT:    %[[S:\w+]] = loop.alloc : memref<16xf32>
// CHECK-NEXT:    func.call @add(%[[HF]], %[[HB]], %[[S]])
// CHECK-NEXT:    %[[Q:\w+]] = loop.alloc : memref<64xf32>
// CHECK-NEXT:    func.call @proj(%x, %[[Q]])
// CHECK-NEXT:    %[[T:\w+]] = loop.alloc : memref<16xf32>
// CHECK-NEXT:    func.call @add(%[[S]], %h0, %[[T]])
// CHECK-NEXT:    loop.copy %[[T]], %z
// Stage 3: after the barrier, two chains of one add each, both reading %s.
// CHECK-NEXT:    %[[U:\w+]] = loop.alloc : memref<16xf32>
// CHECK-NEXT:    %[[V:\w+]] = loop.alloc : memref<16xf32>
// CHECK-NEXT:    loop.sections {
// CHECK-NEXT:      func.call @add(%[[S]], %[[S]], %[[U]])
// CHECK-NEXT:    } {
// CHECK-NEXT:      func.call @add(%[[S]], %h0, %[[V]])
// CHECK-NEXT:    }
// CHECK-NEXT:    func.call @add(%[[U]], %[[V]], %w)
// CHECK-NEXT:    func.return

// Planned: a buffer live in one section never shares bytes with one live in the other (they
// may run at the same time). In block order %pf (section 1) dies before %pb (section 2) is
// first written: without that rule both would take offset 0.
// PLAN-LABEL: func.func @main(
// PLAN:         %pf = loop.alloc {offset = 0 : i64} : memref<64xf32>
// PLAN-NEXT:    %pb = loop.alloc {offset = 256 : i64} : memref<64xf32>
func.func @main(%x: memref<64xf32>, %h0: memref<16xf32>, %y: memref<32xf32>, %z: memref<16xf32>, %w: memref<16xf32>) {
  %xv = loop.view %x[0] : memref<64xf32> to memref<64xf32>
  %pf = loop.alloc : memref<64xf32>
  func.call @proj(%xv, %pf) : (memref<64xf32>, memref<64xf32>) -> ()
  %pb = loop.alloc : memref<64xf32>
  func.call @proj(%xv, %pb) : (memref<64xf32>, memref<64xf32>) -> ()
  %f0 = loop.view %pf[0] : memref<64xf32> to memref<16xf32>
  %hf = loop.alloc : memref<16xf32>
  func.call @step(%f0, %h0, %hf) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  %b0 = loop.view %pb[0] : memref<64xf32> to memref<16xf32>
  %hb = loop.alloc : memref<16xf32>
  func.call @step(%b0, %h0, %hb) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  %f1 = loop.view %pf[16] : memref<64xf32> to memref<16xf32>
  %yf = loop.view %y[0] : memref<32xf32> to memref<16xf32>
  func.call @step(%f1, %hf, %yf) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  %b1 = loop.view %pb[16] : memref<64xf32> to memref<16xf32>
  %yb = loop.view %y[16] : memref<32xf32> to memref<16xf32>
  func.call @step(%b1, %hb, %yb) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  %s = loop.alloc : memref<16xf32>
  func.call @add(%hf, %hb, %s) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  %q = loop.alloc : memref<64xf32>
  func.call @proj(%x, %q) : (memref<64xf32>, memref<64xf32>) -> ()
  %t = loop.alloc : memref<16xf32>
  func.call @add(%s, %h0, %t) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  loop.copy %t, %z : memref<16xf32>, memref<16xf32>
  %u = loop.alloc : memref<16xf32>
  func.call @add(%s, %s, %u) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  %v = loop.alloc : memref<16xf32>
  func.call @add(%s, %h0, %v) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  func.call @add(%u, %v, %w) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  func.return
}

// A callee with neither a body nor loop.inputs may write any buffer it gets: the two
// projections both read %x, but the unknown call between them may have written it, so
// nothing is independent here and nothing changes.
// OPAQUE-LABEL: func.func @opaque(
// OPAQUE-NOT:   loop.sections
// OPAQUE:       func.return
func.func @opaque(%x: memref<64xf32>) {
  %a = loop.alloc : memref<64xf32>
  func.call @unknown(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %b = loop.alloc : memref<64xf32>
  func.call @proj(%x, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  %c = loop.alloc : memref<64xf32>
  func.call @proj(%x, %c) : (memref<64xf32>, memref<64xf32>) -> ()
  func.return
}

// Buffers of run-time size (a conflict is over the whole buffer), and sizes read between
// the calls: `loop.size` reads no buffer, stays where it is, and ends no stage.
// SIZED-LABEL: func.func @sized(
// SIZED-NEXT:    %[[N:\w+]] = loop.size "n"
// SIZED-NEXT:    %[[M:\w+]] = loop.size "n"
// SIZED-NEXT:    loop.sections {
// SIZED-NEXT:      func.call @scale(%x, %a, %[[N]])
// SIZED-NEXT:    } {
// SIZED-NEXT:      func.call @scale(%x, %b, %[[M]])
// SIZED-NEXT:    }
// SIZED-NEXT:    func.call @scale(%a, %b, %[[N]])
// SIZED-NEXT:    func.return
func.func @sized(%x: memref<?xf32, #graph.dims<"n">>, %a: memref<?xf32, #graph.dims<"n">>, %b: memref<?xf32, #graph.dims<"n">>) {
  %n = loop.size "n"
  func.call @scale(%x, %a, %n) : (memref<?xf32, #graph.dims<"n">>, memref<?xf32, #graph.dims<"n">>, index) -> ()
  %m = loop.size "n"
  func.call @scale(%x, %b, %m) : (memref<?xf32, #graph.dims<"n">>, memref<?xf32, #graph.dims<"n">>, index) -> ()
  func.call @scale(%a, %b, %n) : (memref<?xf32, #graph.dims<"n">>, memref<?xf32, #graph.dims<"n">>, index) -> ()
  func.return
}
