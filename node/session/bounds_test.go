package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
)

func TestValidate(t *testing.T) {
	token := pastOf(at(topicA, 0, 5), at(topicA, 1, 2), at(topicB, 0, 9))
	encodedBytes := len(token.Encode()) // 2 + (16+1+1+8+1+8) + (16+1+1+8) = 63
	cases := []struct {
		maxEntries, maxBytes int
		mention              string // "" when the token is within bounds
	}{
		{3, encodedBytes, ""},
		{2, encodedBytes, "names 3 channels, at most 2"},
		{3, encodedBytes - 1, "encodes in 63 bytes, at most 62"},
	}
	for _, tc := range cases {
		err := Validate(token, tc.maxEntries, tc.maxBytes)
		if tc.mention == "" {
			if err != nil {
				t.Errorf("Validate(%d, %d) = %v, want nil", tc.maxEntries, tc.maxBytes, err)
			}
			continue
		}
		if !errors.Is(err, ErrTokenTooLarge) || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("Validate(%d, %d) = %v; want ErrTokenTooLarge naming %q", tc.maxEntries, tc.maxBytes, err, tc.mention)
		}
	}
	if err := Validate(None(), 0, 2); err != nil {
		t.Errorf("the empty token (2 bytes) breaks bounds 0, 2: %v", err)
	}
}

func TestDecodeBounded(t *testing.T) {
	token := pastOf(at(topicA, 0, 5), at(topicA, 1, 2), at(topicB, 0, 9))
	encoded := token.Encode()
	if got, err := DecodeBounded(encoded, 3, len(encoded)); err != nil || !got.Equal(token) {
		t.Errorf("DecodeBounded within bounds = %v, %v", got, err)
	}
	if got, err := DecodeBounded(encoded, 3, len(encoded)-1); !errors.Is(err, ErrTokenTooLarge) || !got.IsEmpty() ||
		!strings.Contains(err.Error(), "63 encoded bytes, at most 62") {
		t.Errorf("DecodeBounded over the byte bound = %v, %v", got, err)
	}
	if got, err := DecodeBounded(encoded, 2, len(encoded)); !errors.Is(err, ErrTokenTooLarge) || !got.IsEmpty() {
		t.Errorf("DecodeBounded over the entry bound = %v, %v", got, err)
	}
	var decodeErr *node.DecodeError
	if got, err := DecodeBounded(encoded[:len(encoded)-1], 3, len(encoded)); !errors.As(err, &decodeErr) || !got.IsEmpty() {
		t.Errorf("DecodeBounded of damaged bytes = %v, %v; want the DecodeError", got, err)
	}
}
