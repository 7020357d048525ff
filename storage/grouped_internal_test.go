package storage

import (
	"reflect"
	"testing"
)

func TestDecodeKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		kind Kind
		want []any
	}{
		{`[]`, KindInt, nil},
		{`[1,-2, 30 ,9223372036854775807]`, KindInt, []any{int64(1), int64(-2), int64(30), int64(9223372036854775807)}},
		{` [ "a" , "b\"c", "d\\e", "\u00e9\n", "" ] `, KindString, []any{"a", `b"c`, `d\e`, "é\n", ""}},
		{`["AK", "AL"]`, KindString, []any{"AK", "AL"}}, // PostgreSQL's json_agg spacing
	} {
		pairs, err := decodeKeys(nil, tc.text, tc.kind, "o")
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		var got []any
		for _, p := range pairs {
			if p[1] != "o" {
				t.Errorf("%s: owner %v", tc.text, p[1])
			}
			got = append(got, p[0])
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %#v, want %#v", tc.text, got, tc.want)
		}
		if keys, err := appendKeys(nil, tc.text, tc.kind); err != nil || !reflect.DeepEqual(keys, tc.want) {
			t.Errorf("%s: appendKeys %#v, %v, want %#v", tc.text, keys, err, tc.want)
		}
	}
	for _, bad := range []struct {
		text string
		kind Kind
	}{
		{``, KindInt}, {`[`, KindInt}, {`[1`, KindInt}, {`[1,]`, KindInt}, {`[1]x`, KindInt}, {`[1.5]`, KindInt},
		{`["a]`, KindString}, {`[a]`, KindString}, {`["a" "b"]`, KindString}, {`["\x"]`, KindString}, {`[1]`, KindString},
		{`{"a":1}`, KindString}, {`["a"]`, KindFloat}, {`[]x`, KindInt}, {`[] ]`, KindString},
	} {
		if got, err := decodeKeys(nil, bad.text, bad.kind, "o"); err == nil {
			t.Errorf("%q accepted as %v", bad.text, got)
		}
		if got, err := appendKeys(nil, bad.text, bad.kind); err == nil {
			t.Errorf("appendKeys: %q accepted as %v", bad.text, got)
		}
	}
}

func TestSortKeys(t *testing.T) {
	t.Parallel()
	ints := [][2]any{{int64(3), 1}, {int64(-1), 1}, {int64(2), 1}}
	sortKeys(ints, KindInt)
	if want := [][2]any{{int64(-1), 1}, {int64(2), 1}, {int64(3), 1}}; !reflect.DeepEqual(ints, want) {
		t.Errorf("ints %v", ints)
	}
	strs := [][2]any{{"b", 1}, {"B", 1}, {"é", 1}, {"a", 1}}
	sortKeys(strs, KindString)
	if want := [][2]any{{"B", 1}, {"a", 1}, {"b", 1}, {"é", 1}}; !reflect.DeepEqual(strs, want) {
		t.Errorf("strings %v", strs)
	}
	list := []any{"b", "B", "é", "a"}
	sortKeyList(list, KindString)
	if want := []any{"B", "a", "b", "é"}; !reflect.DeepEqual(list, want) {
		t.Errorf("key list %v", list)
	}
	nums := []any{int64(3), int64(-1), int64(2)}
	sortKeyList(nums, KindInt)
	if want := []any{int64(-1), int64(2), int64(3)}; !reflect.DeepEqual(nums, want) {
		t.Errorf("int key list %v", nums)
	}
}
