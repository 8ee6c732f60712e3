// The entry point of the Go driver's testkit backend as io.sluice.bolt.TestkitTest builds it: the driver's own
// testkit-backend/main.go listens on ":9876" (every interface, a fixed port); this one serves the same backend
// (newBackend, from the driver's sources beside it) on loopback, on the port given as the first argument, one
// testkit connection at a time.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testkit-backend PORT")
		os.Exit(2)
	}
	listener, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", os.Args[1]))
	if err != nil {
		panic(err)
	}
	fmt.Println("Listening on", listener.Addr())
	for {
		conn, err := listener.Accept()
		if err != nil {
			panic(err)
		}
		serve(conn)
	}
}

// serve runs one testkit connection; a panic in the backend ends that connection, not the process.
func serve(conn net.Conn) {
	defer func() {
		if cause := recover(); cause != nil {
			fmt.Fprintf(os.Stderr, "backend panicked: %v\n", cause)
		}
		conn.Close()
	}()
	newBackend(bufio.NewReader(conn), conn).serve()
}
