# App `a`'s widget for the sandbox tests (probe.py): writes a's secrets into its data
# directory and its group container, then answers updates with its uid.
import json, os, sys
sock = os.fdopen(int(os.environ["EXTENSIOND_FD"]), "r+b", buffering=0)
data = os.environ["EXTENSIOND_DATA_DIR"]
container = os.environ["EXTENSIOND_GROUP_CONTAINERS"].split("=", 1)[1]
for path in (data + "/secret", container + "/secret"):
    with open(path, "w") as f: f.write("a's secret")
sock.write(b'{"type":"ready","protocol":1}\n')
for line in sock:
    message = json.loads(line)
    if message["type"] == "update":
        sock.write((json.dumps({"type": "result", "id": message["id"], "result": "newData", "snapshot": {"uid": os.getuid()}}) + "\n").encode())
    if message["type"] == "terminate": break
