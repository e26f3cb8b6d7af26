print("supervisorctl")
