# Apps `c` and `d` of the VM sandbox test: each sets a shared default of its own group,
# tries to hide another app's widget, reloads (past its budget) and hides its own widget
# when it has one,
# and logs its arguments (a URL that launched it comes last) and every line host.sock
# sends it into its own group container.
import os, socket, sys
container = os.environ["EXTENSIOND_GROUP_CONTAINERS"].split("=", 1)[1]
log = open(container + "/urls.log", "a", buffering=1)
log.write("argv " + " ".join(sys.argv[1:]) + "\n")
sock = socket.socket(socket.AF_UNIX)
sock.connect(os.environ["EXTENSIOND_HOST_SOCKET"])
# The containing app's side: a shared default in its own group, and a widget of another
# app it may not hide (the answers go to the log below).
group = os.environ["EXTENSIOND_GROUP_CONTAINERS"].split("=", 1)[0]
sock.sendall(b'{"type":"defaults","id":1,"group":"%s","op":"set","key":"greeting","value":"hi"}\n' % group.encode())
sock.sendall(b'{"type":"setHasContent","id":2,"extension":"a.widget","value":false}\n')
# An app given its widget's id (its first argument, unless it is the launching URL)
# reloads it twice (a budget of one token: the second is refused) and hides it.
widget = sys.argv[1] if len(sys.argv) > 1 and "://" not in sys.argv[1] else None
if widget:
    sock.sendall(b'{"type":"reloadExtensions","id":3,"extensions":["%s"]}\n' % widget.encode())
    sock.sendall(b'{"type":"reloadExtensions","id":5,"extensions":["%s"]}\n' % widget.encode())
    # Once only: that the daemon keeps it across its restarts is what the test checks.
    if not os.path.exists(container + "/hidden"):
        sock.sendall(b'{"type":"setHasContent","id":4,"extension":"%s","value":false}\n' % widget.encode())
        open(container + "/hidden", "w").close()
for line in sock.makefile("rb"):
    log.write(line.decode())
