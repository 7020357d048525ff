package addentity

import (
	"bufio"
	"fmt"
	"strings"
)

// step is one fenced block of the guide's section: a file to write (its info
// string names a path after the language, as in "go storage/widget.go") or
// shell commands to run ("sh"). Other blocks ("console") are for reading only.
type step struct {
	File string // the path the block's text is written to, relative to the repository
	Text string
	Run  bool // a sh block: its lines are run in order
}

// steps reads the fenced blocks of the section titled heading ("## Adding an
// entity") of a Markdown document, in order.
func steps(markdown, heading string) ([]step, error) {
	var (
		out     []step
		in      bool // inside the section
		fence   *step
		content strings.Builder
	)
	sc := bufio.NewScanner(strings.NewReader(markdown))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case fence != nil && line == "```":
			fence.Text = content.String()
			out = append(out, *fence)
			fence = nil
		case fence != nil:
			content.WriteString(line + "\n")
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "## "):
			in = false
		case in && strings.HasPrefix(line, "```"):
			info := strings.Fields(strings.TrimPrefix(line, "```"))
			fence = &step{}
			content.Reset()
			switch {
			case len(info) == 2:
				fence.File = info[1]
			case len(info) == 1 && info[0] == "sh":
				fence.Run = true
			}
		}
	}
	if fence != nil {
		return nil, fmt.Errorf("a fenced block of %q is not closed", heading)
	}
	var kept []step
	for _, s := range out {
		if s.File != "" || s.Run {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no section %q with files or sh blocks", heading)
	}
	return kept, sc.Err()
}
