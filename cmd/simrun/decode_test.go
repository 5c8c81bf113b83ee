package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"io"
	"strings"
	"testing"
)

const (
	goldenHex = "0102" + "0102030405060708090a0b0c0d0e0f10" + "02" + "020000000000000029" + "050000000000000007" +
		"f102030405060708090a0b0c0d0e0f10" + "01" + "000000000000000009"
	goldenLines = "01020304-0506-0708-090a-0b0c0d0e0f10 2 41\n" +
		"01020304-0506-0708-090a-0b0c0d0e0f10 5 7\n" +
		"f1020304-0506-0708-090a-0b0c0d0e0f10 0 9\n"
	goldenJSON = `{"causes":[` +
		`{"topic_id":"01020304-0506-0708-090a-0b0c0d0e0f10","partition":2,"position":41},` +
		`{"topic_id":"01020304-0506-0708-090a-0b0c0d0e0f10","partition":5,"position":7},` +
		`{"topic_id":"f1020304-0506-0708-090a-0b0c0d0e0f10","partition":0,"position":9}]}` + "\n"
)

// urlBase64Value is a one-entry value whose topic ID spells '-' and '_' in the URL alphabet,
// without padding: topic fbffbf03-..., partition 16, position 1.
var urlBase64Value = strings.TrimRight(base64.URLEncoding.EncodeToString(
	[]byte{1, 1, 0xfb, 0xff, 0xbf, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 1, 16, 0, 0, 0, 0, 0, 0, 0, 1}), "=")

// simrunResult is one in-process run of the command line.
type simrunResult struct {
	code           int
	stdout, stderr string
}

func simrun(stdin string, args ...string) simrunResult {
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return simrunResult{code, out.String(), errOut.String()}
}

func goldenBase64(t *testing.T) string {
	b, err := hex.DecodeString(goldenHex)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestDecodeSuccess(t *testing.T) {
	spaced := strings.ToUpper(goldenHex[:10]) + " \n\t" + goldenHex[10:40] + "\r\n  " + goldenHex[40:]
	cases := []struct {
		name       string
		stdin      string
		args       []string
		wantStdout string
	}{
		{"golden hex", "", []string{"decode", goldenHex}, goldenLines},
		{"upper case and whitespace", "", []string{"decode", spaced}, goldenLines},
		{"stdin", spaced + "\n", []string{"decode", "-"}, goldenLines},
		{"base64", "", []string{"decode", "--base64", goldenBase64(t)}, goldenLines},
		{"base64 unpadded URL alphabet", "", []string{"decode", "--base64", urlBase64Value}, "fbffbf03-0405-0607-0809-0a0b0c0d0e0f 16 1\n"},
		{"base64 from stdin", goldenBase64(t), []string{"decode", "-base64", "-"}, goldenLines},
		{"json", "", []string{"decode", "--json", goldenHex}, goldenJSON},
		{"json flag after the value", "", []string{"decode", goldenHex, "--json"}, goldenJSON},
		{"json empty frontier", "", []string{"decode", "--json", "0100"}, `{"causes":[]}` + "\n"},
		{"empty frontier", "", []string{"decode", "01 00"}, ""},
		{"value after --", "", []string{"decode", "--json", "--", "0100"}, `{"causes":[]}` + "\n"},
		{"largest partition and position", "", []string{"decode", "--json", "0101" + "0102030405060708090a0b0c0d0e0f10" + "01" + "ffffffff07" + "7ffffffffffffffe"},
			`{"causes":[{"topic_id":"01020304-0506-0708-090a-0b0c0d0e0f10","partition":2147483647,"position":9223372036854775806}]}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := simrun(tc.stdin, tc.args...)
			if got.code != 0 || got.stdout != tc.wantStdout {
				t.Fatalf("simrun %q = exit %d, stdout %q, stderr %q; want exit 0, stdout %q", tc.args, got.code, got.stdout, got.stderr, tc.wantStdout)
			}
		})
	}
	if got := simrun("", "decode", "0100"); !strings.Contains(got.stderr, "no causes") {
		t.Fatalf("empty frontier says nothing on stderr: %q", got.stderr)
	}
}

func TestDecodeUndecodable(t *testing.T) {
	cases := []struct {
		name       string
		stdin      string
		args       []string
		wantStderr string // prefix
		wantStdout string
	}{
		{"empty argument", "", []string{"decode", ""}, "undecodable: truncated: ", ""},
		{"empty stdin", "", []string{"decode", "-"}, "undecodable: truncated: ", ""},
		{"whitespace only", "", []string{"decode", "  \n"}, "undecodable: truncated: ", ""},
		{"unknown version", "", []string{"decode", "0200"}, "undecodable: unknown-version: version byte 0x02", ""},
		{"85 80 80 80 10 is not 05", "", []string{"decode", "01 8580808010"}, "undecodable: varint-overflow: ", ""},
		{"trailing byte", "", []string{"decode", goldenHex + "00"}, "undecodable: trailing-bytes: ", ""},
		{"json truncated", "", []string{"decode", "--json", ""}, "undecodable: truncated: ",
			`{"error":{"family":"truncated","offset":0,"detail":"empty value: no version byte"}}` + "\n"},
		{"json trailing offset", "", []string{"decode", "--json", goldenHex + "00"}, "undecodable: trailing-bytes: ",
			`{"error":{"family":"trailing-bytes","offset":63,"detail":"1 byte(s) after the last of 2 group(s)"}}` + "\n"},
		{"json base64 non-minimal", "", []string{"decode", "--json", "--base64", base64.StdEncoding.EncodeToString([]byte{1, 0x81, 0})}, "undecodable: non-minimal-varint: ",
			`{"error":{"family":"non-minimal-varint","offset":1,"detail":"topic count varint ends in a zero byte after 2 byte(s)"}}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := simrun(tc.stdin, tc.args...)
			if got.code != 1 || !strings.HasPrefix(got.stderr, tc.wantStderr) || got.stdout != tc.wantStdout {
				t.Fatalf("simrun %q = exit %d, stdout %q, stderr %q; want exit 1, stdout %q, stderr starting %q",
					tc.args, got.code, got.stdout, got.stderr, tc.wantStdout, tc.wantStderr)
			}
			if strings.Count(got.stderr, "\n") != 1 {
				t.Fatalf("stderr is not one line: %q", got.stderr)
			}
		})
	}
}

func TestDecodeBadUsage(t *testing.T) {
	cases := []struct {
		name       string
		args       []string
		wantStderr string // substring naming what was wrong
	}{
		{"no value", []string{"decode"}, "want the value: HEX (or base64 with --base64), or - for stdin"},
		{"stdin among values", []string{"decode", "01", "-"}, `- reads the value from stdin and comes alone, got ["01" "-"]`},
		{"not hex", []string{"decode", "01zz"}, `value "01zz" is not hex`},
		{"odd hex", []string{"decode", "010"}, `value "010" is not hex`},
		{"not base64", []string{"decode", "--base64", "!!!"}, `value "!!!" is not base64`},
		{"unknown flag", []string{"decode", "--yaml", "0100"}, "flag provided but not defined: -yaml"},
		{"flag value on a bool", []string{"decode", "--json=maybe", "0100"}, "invalid boolean value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := simrun("", tc.args...)
			if got.code != 2 || !strings.Contains(got.stderr, tc.wantStderr) || got.stdout != "" {
				t.Fatalf("simrun %q = exit %d, stdout %q, stderr %q; want exit 2 and stderr naming %q", tc.args, got.code, got.stdout, got.stderr, tc.wantStderr)
			}
		})
	}
}

func TestHelpAndDispatch(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		got := simrun("", args...)
		if got.code != 0 || !strings.Contains(got.stdout, "decode") || !strings.Contains(got.stdout, "subcommands:") {
			t.Fatalf("simrun %q = exit %d, stdout %q", args, got.code, got.stdout)
		}
		for _, code := range []string{"0 pass", "1 a violation", "2 bad usage", "3 the live substrate failed", "130 interrupted"} {
			if !strings.Contains(got.stdout, code) {
				t.Fatalf("help does not give exit status %q: %q", code, got.stdout)
			}
		}
		for _, c := range commands {
			if !strings.Contains(got.stdout, "  "+c.name+" ") {
				t.Fatalf("help does not list %q: %q", c.name, got.stdout)
			}
		}
	}
	if got := simrun("", "decode", "-h"); got.code != 0 || !strings.Contains(got.stdout, "usage: simrun decode") {
		t.Fatalf("decode -h = exit %d, stdout %q", got.code, got.stdout)
	}
	// Anything that is not a subcommand goes to the default run, flags and all.
	called := []string{"unset"}
	saved := defaultRun
	defer func() { defaultRun = saved }()
	defaultRun = withoutStdin(func(args []string, _, _ io.Writer) int { called = args; return 7 })
	if got := simrun("", "--seed", "42"); got.code != 7 || strings.Join(called, " ") != "--seed 42" {
		t.Fatalf("default run got %q, exit %d", called, got.code)
	}
	if got := simrun(""); got.code != 7 || len(called) != 0 {
		t.Fatalf("no args: default run got %q, exit %d", called, got.code)
	}
}
