package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/api/resource"
)

// runQuantities answers --quantities: one JSON string per input line, the
// spelling of a quantity; per output line, what resource.ParseQuantity makes
// of it, as {"value":Value(),"milli":MilliValue()} or {"error":"…"}. The
// property test tests/conformance/quantities.py holds tightpack's Quantity to
// these answers.
func runQuantities(in io.Reader, out io.Writer) error {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	w := bufio.NewWriter(out)
	defer w.Flush()
	for scanner.Scan() {
		var text string
		if err := json.Unmarshal(scanner.Bytes(), &text); err != nil {
			return fmt.Errorf("line %q: %w", scanner.Text(), err)
		}
		q, err := resource.ParseQuantity(text)
		if err != nil {
			msg, _ := json.Marshal(err.Error())
			fmt.Fprintf(w, "{\"error\":%s}\n", msg)
			continue
		}
		fmt.Fprintf(w, "{\"value\":%d,\"milli\":%d}\n", q.Value(), q.MilliValue())
	}
	return scanner.Err()
}
