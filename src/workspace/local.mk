# targets for this part are added here
CLEANFILES += src/workspace/fa-workspace.pc
