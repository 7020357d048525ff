package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

// rssGrowthLimit is how much the server's resident memory may grow from the
// start of the soak (after its warm-up) to the end: issue 16's "flat within
// 20%". A leak of a few bytes a request grows without bound; caches and pools
// that fill once do not.
const rssGrowthLimit = 0.20

// rssSample is the server's VmRSS, in kB, at a time into the soak.
type rssSample struct {
	at time.Duration
	kb int64
}

// rssSampler reads the server's VmRSS every interval.
type rssSampler struct {
	mu      sync.Mutex
	samples []rssSample
}

// run samples pid from start until ctx ends; a sample that cannot be read
// (the process is gone) ends it.
func (s *rssSampler) run(ctx context.Context, pid int, start time.Time, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		kb, err := localserver.ProcStatus(pid, "VmRSS")
		if err != nil {
			return
		}
		s.mu.Lock()
		s.samples = append(s.samples, rssSample{at: time.Since(start), kb: kb})
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (s *rssSampler) all() []rssSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]rssSample(nil), s.samples...)
}

// rssSmoothing is how many samples make the start and the end figure (their
// median): one sample swings by a tenth with each garbage collection, which
// is not growth.
const rssSmoothing = 3

// rssVerdict compares the start of the soak, after warm, with its end: the
// median of the first rssSmoothing samples taken after warm and of the last
// ones (fewer when the soak had too few samples for both). growth is
// (end-start)/start, and ok says it is within rssGrowthLimit (a drop is
// fine). Without a sample after warm it is not ok: the soak was too short to
// say. start.at and end.at are the times of the first and last sample used.
func rssVerdict(samples []rssSample, warm time.Duration) (start, end rssSample, growth float64, ok bool) {
	i := slices.IndexFunc(samples, func(s rssSample) bool { return s.at >= warm })
	if i < 0 {
		return start, end, 0, false
	}
	after := samples[i:]
	k := max(1, min(rssSmoothing, len(after)/2))
	first, last := after[:k], after[len(after)-k:]
	start = rssSample{at: first[0].at, kb: medianKB(first)}
	end = rssSample{at: last[len(last)-1].at, kb: medianKB(last)}
	growth = float64(end.kb-start.kb) / float64(start.kb)
	return start, end, growth, growth <= rssGrowthLimit
}

// medianKB is the median (the lower middle one of an even count) of the samples' kB.
func medianKB(samples []rssSample) int64 {
	kbs := make([]int64, len(samples))
	for i, s := range samples {
		kbs[i] = s.kb
	}
	slices.Sort(kbs)
	return kbs[(len(kbs)-1)/2]
}

// largest is the largest sample.
func largest(samples []rssSample) rssSample {
	var top rssSample
	for _, s := range samples {
		if s.kb > top.kb {
			top = s
		}
	}
	return top
}

// mib formats kB as MiB.
func mib(kb int64) string { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }
