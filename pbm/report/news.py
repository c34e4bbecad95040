"""World & National News (§9.1): one line of history per year, for flavour only.

"The historical messages under World & National News are strictly for
historical flavor; these headlines have no effect on the game."  The lines
are our own wording of well-known events of each year.
"""

from __future__ import annotations

NEWS: dict[int, str] = {
    1841: "President Harrison dies a month after his inauguration; John Tyler takes office.",
    1842: "Webster-Ashburton Treaty settles the Maine boundary with British North America.",
    1843: "Great migration of a thousand settlers sets out along the Oregon Trail.",
    1844: "Morse sends 'What hath God wrought' by telegraph from Washington to Baltimore.",
    1845: "Texas admitted as the 28th state; famine begins in Ireland.",
    1846: "War declared on Mexico; Oregon Treaty fixes the border at the 49th parallel.",
    1847: "Mormon pioneers reach the valley of the Great Salt Lake.",
    1848: "Gold found at Sutter's Mill; treaty of Guadalupe Hidalgo ends the Mexican War.",
    1849: "Forty-niners pour into California by sea and overland trail.",
    1850: "California admitted as a free state under the Compromise of 1850.",
    1851: "Congress grants land to the Illinois Central, the first great railroad land grant.",
    1852: "Uncle Tom's Cabin published in book form and sells by the hundred thousand.",
    1853: "Gadsden Purchase buys a southern route to the Pacific from Mexico.",
    1854: "Kansas-Nebraska Act reopens the slavery question in the territories.",
    1855: "First railroad bridge across the Mississippi nears completion at Rock Island.",
    1856: "Violence in 'Bleeding Kansas'; the new Republican party runs Fremont for President.",
    1857: "Panic of 1857: banks suspend payment and railroad stocks collapse.",
    1858: "Lincoln and Douglas debate across Illinois; first transatlantic cable laid.",
    1859: "Drake strikes oil in Pennsylvania; John Brown raids Harpers Ferry.",
    1860: "Lincoln elected President; South Carolina secedes from the Union.",
    1861: "Fort Sumter fired upon; Civil War begins.",
    1862: "Pacific Railway Act charters the Union Pacific and Central Pacific; Homestead Act passed.",
    1863: "Emancipation Proclamation takes effect; Union victories at Gettysburg and Vicksburg.",
    1864: "Sherman marches from Atlanta to the sea.",
    1865: "Lee surrenders at Appomattox; President Lincoln assassinated.",
    1866: "Atlantic telegraph cable completed for good.",
    1867: "Alaska purchased from Russia for $7.2 million.",
    1868: "President Johnson impeached and acquitted by one vote.",
    1869: "Golden spike driven at Promontory Summit: the continent is spanned by rail.",
    1870: "Standard Oil incorporated in Ohio.",
    1871: "Great fire destroys much of Chicago.",
    1872: "Credit Mobilier scandal exposes Union Pacific construction profits.",
    1873: "Jay Cooke & Company fails; the Panic of 1873 begins a long depression.",
    1874: "Eads Bridge opens across the Mississippi at St. Louis.",
    1875: "Specie Payment Resumption Act promises a return to gold.",
    1876: "Bell patents the telephone; Centennial Exhibition opens in Philadelphia.",
    1877: "Great Railroad Strike spreads from Martinsburg across the country.",
    1878: "Edison announces work on the electric light.",
    1879: "Edison demonstrates a long-burning incandescent lamp.",
    1880: "Garfield elected President.",
    1881: "President Garfield shot by a disappointed office seeker.",
    1882: "Standard Oil Trust organized.",
    1883: "Railroads adopt standard time zones; Brooklyn Bridge opens; Northern Pacific completed.",
    1884: "Washington Monument completed.",
    1885: "Canadian Pacific's last spike driven at Craigellachie.",
    1886: "Southern railroads change to standard gauge in two days; Statue of Liberty dedicated.",
    1887: "Interstate Commerce Act regulates the railroads.",
    1888: "Great blizzard buries the East Coast.",
    1889: "Oklahoma land rush; Johnstown flood.",
    1890: "Sherman Antitrust Act passed; the census declares the frontier closed.",
    1891: "Forest Reserve Act passed.",
    1892: "Ellis Island opens to immigrants.",
    1893: "Panic of 1893: the Reading and Northern Pacific fail; the Great Northern reaches Seattle.",
    1894: "Pullman strike halts trains across the West.",
    1895: "Morgan syndicate rescues the Treasury's gold reserve.",
    1896: "Bryan's Cross of Gold speech; Utah admitted as a state.",
    1897: "Gold strike on the Klondike.",
    1898: "War with Spain; Hawaii annexed.",
    1899: "Open Door notes on trade with China.",
    1900: "Gold Standard Act passed; the nation counts 76 million people.",
}


def news_for(year: int) -> str:
    """The line for ``year`` (the nearest earlier year outside 1841–1900's table, else the first)."""
    if year in NEWS:
        return NEWS[year]
    earlier = [y for y in NEWS if y <= year]
    return NEWS[max(earlier)] if earlier else NEWS[min(NEWS)]
