package deps
import (
 _ "github.com/twmb/franz-go/pkg/kgo"
 _ "github.com/twmb/franz-go/pkg/kadm"
 _ "github.com/twmb/franz-go/pkg/kfake"
 _ "pgregory.net/rapid"
 _ "gonum.org/v1/gonum/stat"
)
