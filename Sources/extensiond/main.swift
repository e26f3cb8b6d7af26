print("extensiond")
