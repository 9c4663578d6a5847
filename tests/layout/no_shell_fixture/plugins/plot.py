# os.system("x") in a comment is not a call
import os, subprocess
os.system("touch x")
subprocess.run("ls", shell=True)
subprocess.run(["ls"])
