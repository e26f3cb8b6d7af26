# App `d`'s widget in the VM sandbox test: at each update it reads the greeting its app
# set in their shared group's defaults, logs why it was updated into that group's
# container, and answers with the greeting.
import json, os
sock = os.fdopen(int(os.environ["EXTENSIOND_FD"]), "r+b", buffering=0)
group, container = os.environ["EXTENSIOND_GROUP_CONTAINERS"].split("=", 1)
def send(message): sock.write((json.dumps(message) + "\n").encode())
send({"type": "ready", "protocol": 1})
for line in sock:
    message = json.loads(line)
    if message["type"] == "terminate": break
    if message["type"] != "update": continue
    with open(container + "/updates.log", "a") as log: log.write(message["reason"] + "\n")
    send({"type": "defaults", "id": 1, "group": group, "op": "get", "key": "greeting"})
    answer = json.loads(sock.readline())
    send({"type": "result", "id": message["id"], "result": "newData", "snapshot": {"greeting": answer.get("value")}})
