# pyhook: targets are added here
