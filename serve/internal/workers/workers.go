// Package workers runs work items on a bounded number of goroutines, for
// the command line's batch runs and the model harness.
package workers

import (
	"context"
	"sync"
)

// ForEach calls work(ctx, i) for every i in [0, n) on up to workers
// goroutines. The first error cancels the context the others see and is
// returned; items not yet started are then skipped. work does its own
// locking for anything it shares.
func ForEach(ctx context.Context, n, workers int, work func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	ch := make(chan int)
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				if err := work(ctx, i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case ch <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	return firstErr
}
