# Apps `c` and `d` of the VM sandbox test: each logs its arguments (a URL that launched
# it comes last) and every line host.sock sends it into its own group container.
import os, socket, sys
container = os.environ["EXTENSIOND_GROUP_CONTAINERS"].split("=", 1)[1]
log = open(container + "/urls.log", "a", buffering=1)
log.write("argv " + " ".join(sys.argv[1:]) + "\n")
sock = socket.socket(socket.AF_UNIX)
sock.connect(os.environ["EXTENSIOND_HOST_SOCKET"])
for line in sock.makefile("rb"):
    log.write(line.decode())
