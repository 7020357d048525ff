package main

import (
	"slices"
	"time"
)

// p99Spread is how far the p99 of one window may rise above the smallest
// window's: issue 30's "p99 by minute flat within a factor of 2". A cost that
// grows with the tables shows as a climb well past it over 30 minutes.
const p99Spread = 2.0

// p99Verdict judges the p99 of each window (width wide) of the soak, leaving
// out the windows that end within the warm-up (caches, pools and the
// planner's statistics settle there, as for RSS) and a last window shorter
// than half a width, whose few requests make its p99 a lottery. It returns
// the smallest and largest p99 judged and whether largest <= 2 x smallest;
// with no window to judge it is false (run longer).
func p99Verdict(p99s []time.Duration, width, warm, elapsed time.Duration) (low, high time.Duration, flat bool) {
	var judged []time.Duration
	for i, p := range p99s {
		end := time.Duration(i+1) * width
		if end <= warm {
			continue
		}
		if i == len(p99s)-1 && elapsed-time.Duration(i)*width < width/2 {
			continue
		}
		if p > 0 {
			judged = append(judged, p)
		}
	}
	if len(judged) == 0 {
		return 0, 0, false
	}
	low, high = slices.Min(judged), slices.Max(judged)
	return low, high, float64(high) <= p99Spread*float64(low)
}

// rateKept says whether the soak kept its offered rate: nothing shed for
// want of a free sender and at least 95% of the target answered. Below that
// the server (or the machine it shares) fell behind and the latencies are
// queueing, whatever they look like.
func rateKept(achieved, target float64, shed int64) bool {
	return shed == 0 && achieved >= 0.95*target
}
