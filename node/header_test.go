package node

import (
	"errors"
	"testing"
)

func TestExtractCauses(t *testing.T) {
	valid := mustHex(t, golden)
	wantGolden, err := Decode(valid)
	if err != nil {
		t.Fatal(err)
	}
	app := Header{Key: "trace-id", Value: []byte("abc")}
	cases := []struct {
		name    string
		headers []Header
		want    Causes
		family  Family // "" when extraction succeeds
	}{
		{"no headers: no causes", nil, Causes{}, ""},
		{"absent among others: no causes", []Header{app, {Key: "parsley.other", Value: []byte{9}}}, Causes{}, ""},
		{"one valid", []Header{app, {Key: HeaderKey, Value: valid}}, wantGolden, ""},
		{"other parsley.* headers ignored", []Header{{Key: "parsley.other", Value: nil}, {Key: HeaderKey, Value: valid}, {Key: "parsley.causes.v2", Value: []byte{1}}}, wantGolden, ""},
		{"key match is exact: Parsley.causes is not the header", []Header{{Key: "Parsley.causes", Value: []byte{0xff}}}, Causes{}, ""},
		{"null value", []Header{{Key: HeaderKey, Value: nil}}, Causes{}, FamilyNullValue},
		{"empty value", []Header{{Key: HeaderKey, Value: []byte{}}}, Causes{}, FamilyTruncated},
		{"grammar failure", []Header{{Key: HeaderKey, Value: []byte{0x02, 0x00}}}, Causes{}, FamilyUnknownVersion},
		{"duplicate, both valid", []Header{{Key: HeaderKey, Value: valid}, app, {Key: HeaderKey, Value: valid}}, Causes{}, FamilyDuplicateHeader},
		{"duplicate, both empty frontiers", []Header{{Key: HeaderKey, Value: []byte{1, 0}}, {Key: HeaderKey, Value: []byte{1, 0}}}, Causes{}, FamilyDuplicateHeader},
		{"duplicate, first null", []Header{{Key: HeaderKey}, {Key: HeaderKey, Value: valid}}, Causes{}, FamilyDuplicateHeader},
		{"duplicate, second undecodable", []Header{{Key: HeaderKey, Value: valid}, {Key: HeaderKey, Value: []byte{7}}}, Causes{}, FamilyDuplicateHeader},
		{"three copies", []Header{{Key: HeaderKey, Value: valid}, {Key: HeaderKey, Value: valid}, {Key: HeaderKey, Value: valid}}, Causes{}, FamilyDuplicateHeader},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExtractCauses(tc.headers)
			if tc.family == "" {
				if err != nil || !got.Equal(tc.want) {
					t.Fatalf("ExtractCauses = %v, %v; want %v", got, err, tc.want)
				}
				return
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Family != tc.family {
				t.Fatalf("ExtractCauses = %v, %v; want family %s", got, err, tc.family)
			}
			if !got.IsEmpty() {
				t.Fatalf("an undecodable header yielded causes %v", got)
			}
		})
	}
}

func TestCausesHeaderPresence(t *testing.T) {
	v, present, err := CausesHeader([]Header{{Key: "x"}, {Key: HeaderKey, Value: []byte{}}})
	if err != nil || !present || v == nil || len(v) != 0 {
		t.Fatalf("empty value: %v %v %v; want present, non-nil, empty", v, present, err)
	}
	v, present, err = CausesHeader([]Header{{Key: HeaderKey}})
	if err != nil || !present || v != nil {
		t.Fatalf("null value: %v %v %v; want present and nil", v, present, err)
	}
	if _, present, err = CausesHeader([]Header{{Key: "parsley.x", Value: []byte{1, 0}}}); present || err != nil {
		t.Fatalf("absent: present=%v err=%v", present, err)
	}
	_, _, err = CausesHeader([]Header{{Key: HeaderKey}, {Key: "a"}, {Key: HeaderKey}})
	var de *DecodeError
	if !errors.As(err, &de) || de.Family != FamilyDuplicateHeader || de.Detail == "" {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestReservedHeader(t *testing.T) {
	cases := []struct {
		headers []Header
		want    string
	}{
		{nil, ""},
		{[]Header{{Key: "trace"}, {Key: "parsleyx"}, {Key: "Parsley.causes"}, {Key: "x.parsley.y"}}, ""},
		{[]Header{{Key: "trace"}, {Key: "parsley.causes"}}, "parsley.causes"},
		{[]Header{{Key: "parsley."}}, "parsley."},
		{[]Header{{Key: "parsley.mine"}, {Key: "parsley.other"}}, "parsley.mine"},
	}
	for _, tc := range cases {
		if got := ReservedHeader(tc.headers); got != tc.want {
			t.Errorf("ReservedHeader(%v) = %q, want %q", tc.headers, got, tc.want)
		}
	}
}
