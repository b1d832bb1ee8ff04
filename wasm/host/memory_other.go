//go:build !linux

package host

import "context"

// withLinearMemory leaves wazero's default (linear memory in the Go heap)
// elsewhere than on Linux (memory_linux.go).
func withLinearMemory(ctx context.Context) context.Context { return ctx }
