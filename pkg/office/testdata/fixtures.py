"""Makes the DOCX and XLSX fixtures of pkg/office's tests (python3-docx,
python3-openpyxl): python3 fixtures.py OUTDIR"""
import datetime
import sys

import docx
import openpyxl

out = sys.argv[1]

d = docx.Document()
d.add_heading("Quarterly Report", level=1)
p = d.add_paragraph("Revenue grew ")
p.add_run("strongly").bold = True
p.add_run(" in ")
p.add_run("all").italic = True
p.add_run(" regions.")
d.add_heading("Details", level=2)
d.add_paragraph("first point", style="List Bullet")
d.add_paragraph("second point", style="List Bullet")
d.add_paragraph("nested point", style="List Bullet 2")
d.add_paragraph("step one", style="List Number")
d.add_paragraph("step two", style="List Number")
t = d.add_table(rows=3, cols=2)
for r, (a, b) in enumerate([("Region", "Sales"), ("North", "120"), ("South | East", "80")]):
    t.cell(r, 0).text = a
    t.cell(r, 1).text = b
d.add_paragraph("Ünïcödé 中文 text stays.")
d.save(out + "/report.docx")

wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Sales"
ws.append(["Region", "Units", "Price", "Date", "Ok"])
ws.append(["North", 12, 3.5, datetime.date(2024, 3, 1), True])
ws.append(["South", 7, 2.25, datetime.datetime(2024, 3, 2, 13, 30), False])
ws["F2"] = "=B2*C2"
ws2 = wb.create_sheet("Notes")
ws2["B2"] = "only cell"
wb.create_sheet("Empty")
wb.save(out + "/book.xlsx")
