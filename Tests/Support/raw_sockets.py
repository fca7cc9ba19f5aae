#!/usr/bin/env python3
"""Many plain TCP sockets to a local server, held in this process for a test (slow or many clients).

The test process itself must not hold thousands of sockets: every child it spawns meanwhile
(Foundation's Process) walks and closes each open descriptor, and under that load a spawn was
seen to crash. So the sockets live here, driven by one request line on stdin, one answer line on
stdout:

  open COUNT PORT SRC[,SRC…]   connect COUNT sockets to 127.0.0.1:PORT, round-robin over the
                               source addresses (all of 127.0.0.0/8 is local) -> number connected
  send BASE64                  send the bytes on every socket still open (errors ignored) -> ok
  sendone INDEX BASE64         send the bytes on socket INDEX -> ok
  closed                       sockets the server has closed (reset, or end of stream) -> number
  received INDEX               what the server sent on socket INDEX so far -> BASE64
  closeall                     close every socket -> ok

The soft RLIMIT_NOFILE is raised to the hard limit first. Ends at end of input.
"""
import base64
import errno
import resource
import select
import socket
import sys

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if hard == resource.RLIM_INFINITY or hard > soft:
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass

sockets = []
# Sockets whose end of stream was seen (so "closed" keeps counting them once read out).
ended = set()
received = {}


def drain(index):
    """Reads what is waiting on socket `index` (non-blocking); True when the stream has ended."""
    sock = sockets[index]
    while True:
        try:
            data = sock.recv(65536, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError:
            return True
        if not data:
            return True
        received.setdefault(index, bytearray()).extend(data)


def open_sockets(count, port, sources):
    connected = 0
    for i in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((sources[i % len(sources)], 0))
            sock.connect(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        sockets.append(sock)
        connected += 1
    return connected


def send_all(data):
    for sock in sockets:
        try:
            sock.send(data, socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL)
        except OSError:
            pass


def closed_count():
    poller = select.poll()
    index_of = {}
    for index, sock in enumerate(sockets):
        if index not in ended:
            poller.register(sock, select.POLLIN)
            index_of[sock.fileno()] = index
    for fd, events in poller.poll(0):
        index = index_of[fd]
        if events & (select.POLLERR | select.POLLHUP) or drain(index):
            ended.add(index)
    return len(ended)


def main():
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "open":
            answer = str(open_sockets(int(words[1]), int(words[2]), words[3].split(",")))
        elif command == "send":
            send_all(base64.b64decode(words[1]) if len(words) > 1 else b"")
            answer = "ok"
        elif command == "sendone":
            try:
                sockets[int(words[1])].send(base64.b64decode(words[2]) if len(words) > 2 else b"", socket.MSG_NOSIGNAL)
            except OSError:
                pass
            answer = "ok"
        elif command == "closed":
            answer = str(closed_count())
        elif command == "received":
            index = int(words[1])
            if index not in ended and drain(index):
                ended.add(index)
            answer = base64.b64encode(bytes(received.get(index, b""))).decode() or "-"
        elif command == "closeall":
            for sock in sockets:
                sock.close()
            sockets.clear()
            ended.clear()
            received.clear()
            answer = "ok"
        else:
            answer = "error unknown command " + command
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        pass
    except OSError as error:
        if error.errno != errno.EPIPE:
            raise
