//go:build ompi || mpich

package main

const systemMPI = true
