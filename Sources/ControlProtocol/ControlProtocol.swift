/// The control protocol between supervisorctl and the daemon.
