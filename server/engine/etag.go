package engine

import (
	"errors"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// Conditional requests (issue 18, RFC 9110 §13). A record's ETag is
// "<version>-<shape>": the version its table counts (storage.VersionColumn)
// and four hex digits of a hash of what shapes the document (format, query,
// language, currency, X-Include), so that two representations of one
// state never share a tag, yet If-Match compares only the version: a tag
// read in either format, with any fields, names the same state. A list's
// tag is a hash of its answer's bytes (bodyETag). If-Match: precondition.go.

// maxTags bounds the entity tags one If-Match or If-None-Match may list.
const maxTags = 64

// entityTag is one member of an If-Match or If-None-Match list.
type entityTag struct {
	weak   bool
	opaque string // with its quotes
}

// tagList is a parsed If-Match or If-None-Match: any (the header is "*") or
// its tags.
type tagList struct {
	any  bool
	tags []entityTag
}

// errBadTags reports a header that is not "*" or a list of entity tags.
var errBadTags = errors.New("not an entity-tag list")

// parseTags reads the values of an If-Match or If-None-Match header (RFC
// 9110: "*" / #entity-tag); nil values mean the header is absent (nil, nil).
func parseTags(values []string) (*tagList, error) {
	if values == nil {
		return nil, nil
	}
	l := &tagList{}
	for _, v := range values {
		for rest := strings.TrimSpace(v); rest != ""; {
			if rest[0] == ',' {
				rest = strings.TrimLeft(rest[1:], " \t")
				continue
			}
			if rest[0] == '*' {
				l.any = true
				rest = strings.TrimLeft(rest[1:], " \t")
				continue
			}
			var t entityTag
			if strings.HasPrefix(rest, "W/") {
				t.weak, rest = true, rest[2:]
			}
			if rest == "" || rest[0] != '"' {
				return nil, errBadTags
			}
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, errBadTags
			}
			t.opaque, rest = rest[:end+2], rest[end+2:]
			for i := 1; i < len(t.opaque)-1; i++ {
				if c := t.opaque[i]; c < 0x21 || c == 0x7f {
					return nil, errBadTags
				}
			}
			rest = strings.TrimLeft(rest, " \t")
			if rest != "" && rest[0] != ',' {
				return nil, errBadTags
			}
			if l.tags = append(l.tags, t); len(l.tags) > maxTags {
				return nil, errBadTags
			}
		}
	}
	if !l.any && len(l.tags) == 0 {
		return nil, errBadTags
	}
	if l.any && len(l.tags) > 0 {
		return nil, errBadTags // "*" stands alone
	}
	return l, nil
}

// matchesWeak tells whether If-None-Match l names tag, by the weak
// comparison RFC 9110 §13.1.2 prescribes for it (W/ ignored).
func (l *tagList) matchesWeak(tag string) bool {
	if l.any {
		return true
	}
	for _, t := range l.tags {
		if t.opaque == tag {
			return true
		}
	}
	return false
}

// versionOf reads the version a strong tag of ours names; false for a weak
// tag or one that is not ours.
func (t entityTag) versionOf() (int64, bool) {
	if t.weak {
		return 0, false
	}
	inner := t.opaque[1 : len(t.opaque)-1]
	head, _, ok := strings.Cut(inner, "-")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(head, 10, 64)
	return v, err == nil && v > 0
}

// shapeHash is four hex digits naming the representation a request asks
// for (its format, query, language, currency and the fields the caller
// may read), and the members of the to-many relationships it shows: those are
// kept outside the record's row (a join table, or the other records'
// references, as the users of a business unit), and a change of them need
// not count the record's version, yet the document shows it, so the tag of
// a GET changes with them (If-Match still compares the version alone).
func shapeHash(cl *call, links linkage) string {
	h := fnv.New32a()
	_, _ = io.WriteString(h, strconv.Itoa(int(cl.f)))
	_, _ = io.WriteString(h, "\x00"+cl.query.Encode()+"\x00"+cl.lang+"\x00"+cl.currency)
	_, _ = io.WriteString(h, "\x00"+strconv.FormatBool(cl.hateoas)+strconv.FormatBool(cl.title))
	if cl.rt != nil && cl.rt.res != nil {
		// The fields the caller may read (docs/fields.md): two views of one
		// record are two representations.
		if view := cl.view(cl.rt.res).ViewKey(); view != 0 {
			_, _ = io.WriteString(h, "\x00view:"+strconv.FormatUint(view, 16))
		}
	}
	names := make([]string, 0, len(links))
	for name := range links {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		_, _ = io.WriteString(h, "\x00"+name+":")
		for _, keys := range links[name] { // one owner: the record
			for _, k := range keys {
				_, _ = io.WriteString(h, keyString(k)+",")
			}
		}
	}
	s := h.Sum32()
	const hex = "0123456789abcdef"
	return string([]byte{hex[s>>12&0xf], hex[s>>8&0xf], hex[s>>4&0xf], hex[s&0xf]})
}

// recordETag is the strong ETag of a record's document: its version and the
// shape of the request and of its to-many linkage (links, as loaded for the
// document); "" when the record has no version.
func recordETag(cl *call, t *storage.Table, row storage.Row, links linkage) string {
	if !t.Versioned {
		return ""
	}
	v, ok := row[storage.VersionColumn].(int64)
	if !ok {
		return ""
	}
	return `"` + strconv.FormatInt(v, 10) + "-" + shapeHash(cl, links) + `"`
}

// bodyETag is the strong ETag of an answer: a hash of its bytes and of the
// total count it reports, "b<hex>" (never a record's "<version>-" form, so
// If-Match cannot mistake it for a version).
func bodyETag(reply *jsonapi.Reply) (string, error) {
	h := xxhash.New() // fast over a long answer, and the same in every process
	if err := reply.Digest(h); err != nil {
		return "", err
	}
	// The same bytes as one string, written without joining them first.
	for _, s := range [...]string{"\x00", reply.ContentType, "\x00", reply.Header.Get("X-Include-Total-Count")} {
		_, _ = h.WriteString(s)
	}
	var tag [20]byte // `"b`, 16 hexadecimal digits at most, `"`
	b := strconv.AppendUint(append(tag[:0], `"b`...), h.Sum64(), 16)
	return string(append(b, '"')), nil
}

// tagged answers a read whose ETag is a hash of its answer (a list, a
// subresource, a relationship): read renders it, then it is tagged and
// compared with If-None-Match.
func tagged(r *Request, read func(*Request) (*jsonapi.Reply, error)) (*jsonapi.Reply, error) {
	reply, err := read(r)
	if err != nil || reply.Status != http.StatusOK {
		return reply, err
	}
	tag, err := bodyETag(reply)
	if err != nil {
		return nil, err
	}
	return conditionalRead(r.IfNoneMatch, reply, tag)
}

// IfNoneMatch is a request's If-None-Match header, parsed once, for the
// edge that answers reads from the answers it keeps (server/answers.go):
// it asks it of each kept answer's tag as the engine's reads would.
type IfNoneMatch struct{ l *tagList }

// ParseIfNoneMatch reads the values of If-None-Match (nil: absent, which
// matches nothing); an error when the header is malformed, which the
// engine's reads answer with a 400.
func ParseIfNoneMatch(values []string) (IfNoneMatch, error) {
	l, err := parseTags(values)
	return IfNoneMatch{l}, err
}

// NotModified tells whether a read whose answer is tagged tag is 304 Not
// Modified under m (RFC 9110 §13.1.2: weak comparison).
func (m IfNoneMatch) NotModified(tag string) bool {
	return m.l != nil && tag != "" && m.l.matchesWeak(tag)
}

// conditionalRead gives a read's reply its ETag and, when If-None-Match
// names it, turns it into 304 Not Modified without a body (RFC 9110
// §13.1.2): a client that holds the document does not get it again.
func conditionalRead(ifNoneMatch []string, reply *jsonapi.Reply, tag string) (*jsonapi.Reply, error) {
	if tag == "" || reply == nil {
		return reply, nil
	}
	if reply.Header == nil {
		reply.Header = http.Header{}
	}
	reply.Header.Set("ETag", tag)
	l, err := parseTags(ifNoneMatch)
	if err != nil {
		return nil, problem.HeaderValue("If-None-Match", "The If-None-Match header is not \"*\" or a list of entity tags.")
	}
	if l != nil && l.matchesWeak(tag) {
		return &jsonapi.Reply{Status: http.StatusNotModified, Header: reply.Header}, nil
	}
	return reply, nil
}
