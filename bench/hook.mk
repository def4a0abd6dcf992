# targets for this part are added here
