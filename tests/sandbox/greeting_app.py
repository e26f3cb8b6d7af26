# App `b` for the sandbox tests (probe.py): writes a greeting into its group container,
# which its widget must be able to read, then waits.
import os, time
container = os.environ["EXTENSIOND_GROUP_CONTAINERS"].split("=", 1)[1]
with open(container + "/greeting", "w") as f: f.write("hello from b")
time.sleep(1000)
