package localserver

import (
	"bufio"
	"io"
	"strconv"
)

// WriteAccounts writes the body of a batch of n new accounts,
// {"data":[...]}, named "<prefix> <i>": the body the load programs stream
// into PATCH /admin/api/accounts while it is generated, so that a batch of
// a million records is never held in memory.
func WriteAccounts(w io.Writer, n int, prefix string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.WriteString(`{"data":[`)
	var num []byte
	for i := range n {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		_, _ = bw.WriteString(`{"type":"accounts","attributes":{"name":`)
		num = strconv.AppendQuote(num[:0], prefix+" "+strconv.Itoa(i))
		_, _ = bw.Write(num)
		if _, err := bw.WriteString(`}}`); err != nil {
			return err
		}
	}
	_, _ = bw.WriteString(`]}`)
	return bw.Flush()
}
