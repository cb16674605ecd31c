"""The datasets of the book (read by nbcore.datasets): small CSV tables, the SMS Spam
Collection as published, with its attribution in SMSSpamCollection.README.md, and the 210
heights and weights of probml/pyprobml, with its MIT notice in heightWeightData.README.md."""
