module github.com/hympi/hympi

go 1.26.8

require (
	github.com/edsrzf/mmap-go v1.2.0
	golang.org/x/sys v0.49.0
)
