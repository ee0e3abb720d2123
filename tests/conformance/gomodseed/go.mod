module tightpack.io/tests/conformance/gomodseed

go 1.22
