Bej
locationdata.binj
offset16j
length32p