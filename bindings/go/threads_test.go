package mkb

// libmkb keeps a failed call's text per handle and per OS thread (mkb.h, Conventions), and the Go
// runtime may move a goroutine to another thread between two cgo calls: the binding must read the
// text on the thread that made the call.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestEachGoroutineReadsItsOwnError(t *testing.T) {
	s, err := Open(options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const goroutines, rounds = 64, 200
	var wrong sync.Map
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				name := fmt.Sprintf("no_such_problem_%d_%d", g, i)
				_, err := s.Evaluate(name, "cuda", "x")
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrNotFound) || !strings.Contains(e.Message, "'"+name+"'") {
					wrong.Store(name, fmt.Sprint(err))
				}
			}
		}(g)
	}
	wg.Wait()
	count := 0
	wrong.Range(func(name, got any) bool {
		if count++; count <= 5 {
			t.Errorf("%s: got %s", name, got)
		}
		return true
	})
	if count > 0 {
		t.Errorf("%d of %d calls read another call's text", count, goroutines*rounds)
	}
}
