// Package floor holds two small kernels that measure what Go's
// WebAssembly code generation allows at best, as a floor for the
// wasm/native ratios of the simulation (BenchmarkRatio in wasm/host
// runs each natively and inside a module built from ./module, under the
// same wazero configuration as sim.wasm):
//
//   - Search is a breadth-first search over a 13×13 grid with walls, the
//     core of the sim's planner with nothing else: a queue, a visited
//     stamp per tile, four neighbours, bounds and walls checked.
//   - Mix is straight-line integer arithmetic in a loop, with no memory
//     access and no branch but the loop's own.
//
// Under Go's wasm code every branch to another block goes through the
// function's dispatch loop (a br_table), and every slice access is a
// load through linear memory with its bounds check, so Search shows the
// cost of branchy code, Mix that of code without branches.
package floor

// Width and Height are the grid's size, the sim's worlds' size.
const Width, Height = 13, 13

// grid is the searched grid: true marks a wall. Every seventh tile whose
// index is a multiple of three is a wall; the corners are open.
var grid = func() (walls [Width * Height]bool) {
	for i := 0; i < len(walls); i += 7 {
		walls[i] = i%3 == 0
	}
	walls[0], walls[len(walls)-1] = false, false
	return walls
}()

// Searcher keeps a search's scratch space from one search to the next,
// as the sim's planner does.
type Searcher struct {
	seen  [Width * Height]uint32
	queue [Width * Height]int32
	stamp uint32
}

// Search runs n searches between corners of the grid and returns the
// sum of the number of tiles each one took from its queue before it
// reached its goal (a checksum: both builds must agree).
func (s *Searcher) Search(n int) int {
	sum := 0
	for i := range n {
		sum += s.search(i%2, Width*Height-1-i%3)
	}
	return sum
}

// search returns how many tiles the search took from its queue to reach
// to from from, or -1 when to cannot be reached.
func (s *Searcher) search(from, to int) int {
	walls, seen, queue := grid[:], s.seen[:], s.queue[:]
	if s.stamp++; s.stamp == 0 { // wrapped: forget every stamp
		clear(seen)
		s.stamp = 1
	}
	stamp := s.stamp
	head, tail := 0, 0
	queue[tail] = int32(from)
	tail++
	seen[from] = stamp
	for head < tail {
		c := int(queue[head])
		head++
		if c == to {
			return head
		}
		x, y := c%Width, c/Width
		if n := c - Width; y > 0 && !walls[n] && seen[n] != stamp {
			seen[n], queue[tail] = stamp, int32(n)
			tail++
		}
		if n := c + 1; x < Width-1 && !walls[n] && seen[n] != stamp {
			seen[n], queue[tail] = stamp, int32(n)
			tail++
		}
		if n := c + Width; y < Height-1 && !walls[n] && seen[n] != stamp {
			seen[n], queue[tail] = stamp, int32(n)
			tail++
		}
		if n := c - 1; x > 0 && !walls[n] && seen[n] != stamp {
			seen[n], queue[tail] = stamp, int32(n)
			tail++
		}
	}
	return -1
}

// Mix runs n rounds of xorshift mixing and returns the result.
func Mix(n int) uint64 {
	x := uint64(1)
	for i := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		x += uint64(i)
	}
	return x
}
